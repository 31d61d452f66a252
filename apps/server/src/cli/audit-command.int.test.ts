import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProject, engines, signedInUser, useTestApp } from '../test/harness.js';
import { createKey } from '../test/resources.js';
import { auditCommand } from './audit-command.js';

describe.each(engines)('gantry audit verify ($name)', (engine) => {
  const t = useTestApp(engine);
  afterEach(() => vi.restoreAllMocks());

  const run = async () => {
    const out: string[] = [];
    const err: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
    const code = await auditCommand('verify', {
      GANTRY_DATA_DIR: t().config.dataDir,
      GANTRY_DB_URL: t().config.dbUrl,
      GANTRY_LOG_LEVEL: 'silent',
    });
    vi.restoreAllMocks();
    return { code, out: out.join(''), err: err.join('') };
  };

  it('exits 0 with the count on an intact chain, 1 naming the entry a SQL update changed', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    await createKey(admin, p);
    await createKey(admin, p, 'none', 'second');
    const count = (
      await t()
        .db.db.selectFrom('audit_entry')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n;
    const ok = await run();
    expect(ok.code).toBe(0);
    expect(ok.out).toContain(`${Number(count)} entries verified`);

    const victim = (
      await t()
        .db.db.selectFrom('audit_entry')
        .select('id')
        .where('object_type', '=', 'project')
        .executeTakeFirstOrThrow()
    ).id;
    await sql`update audit_entry set actor_login = ${'someone-else'} where id = ${victim}`.execute(t().db.db);
    const bad = await run();
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(new RegExp(`broken at entry ${victim}\\b`));
  });

  it('refuses an unknown subcommand', async () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await auditCommand('nope', {})).toBe(2);
  });
});
