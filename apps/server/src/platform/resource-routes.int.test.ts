import { PROJECT_ROLES, type ProjectRole } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { addMember, createProject, engines, signedInUser, useTestApp, type Caller } from '../test/harness.js';
import { createKey, createRepository } from '../test/resources.js';

const MANAGE: ProjectRole[] = ['owner', 'manager'];

/** Per section: a valid body for create and update, built from ids of existing rows. */
const sections = (ids: { key: number }) => ({
  keys: { name: 'k', type: 'none' },
  repositories: { name: 'r', git_url: '/srv/r', ssh_key_id: ids.key },
  inventory: { name: 'i', type: 'static', inventory: '', ssh_key_id: ids.key },
  environment: { name: 'e', json: '{}', env: '{}' },
});

describe.each(engines)('project resource permissions ($name)', (engine) => {
  const t = useTestApp(engine);

  for (const role of [...PROJECT_ROLES, 'non-member'] as const) {
    it(`${role}: reads ${role === 'non-member' ? 'nothing' : 'everything'}, changes ${role !== 'non-member' && MANAGE.includes(role) ? 'everything' : 'nothing'}`, async () => {
      const ctx = t();
      const admin = await signedInUser(ctx, { admin: true });
      const member: Caller = await signedInUser(ctx);
      const p = await createProject(admin);
      if (role !== 'non-member') await addMember(ctx, p, member.id, role);
      const key = await createKey(admin, p);
      await createRepository(admin, p, key);
      const bodies = sections({ key });
      const canManage = role !== 'non-member' && MANAGE.includes(role);
      const denied = role === 'non-member' ? 404 : 403;

      for (const [section, body] of Object.entries(bodies)) {
        const base = `/api/project/${p}/${section}`;
        const existing = (await admin.post(base, body)).json().id as number;
        const checks: Array<[string, Promise<{ statusCode: number }>, number]> = [
          ['list', member.get(base), role === 'non-member' ? 404 : 200],
          ['get', member.get(`${base}/${existing}`), role === 'non-member' ? 404 : 200],
          ['refs', member.get(`${base}/${existing}/refs`), role === 'non-member' ? 404 : 200],
          ['create', member.post(base, body), canManage ? 201 : denied],
          ['update', member.put(`${base}/${existing}`, body), canManage ? 204 : denied],
        ];
        for (const [what, call, expected] of checks) {
          expect([section, what, (await call).statusCode]).toEqual([section, what, expected]);
        }
        const del = await member.del(`${base}/${existing}`);
        expect([section, 'delete', del.statusCode]).toEqual([section, 'delete', canManage ? 204 : denied]);
      }
    });
  }
});
