import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../../../test/engines.js';
import { pemPrivateKey } from '../../../test/keys.js';
import type { Caller } from '../../../test/harness.js';
import { SERVER_BIN, signInNode, startNode, stopNode, type ServerNode } from '../../../test/server-process.js';

// `gantry apply` / `gantry export` of the built CLI (`npm run build` first) against a real server process.

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(env: Record<string, string>, args: string[]): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn('node', [SERVER_BIN, ...args], { env: { PATH: process.env.PATH, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const PRIVATE_KEY = pemPrivateKey();
const VAULT_PASSWORD = 'vault-pw-never-shown-7';
const CI_TOKEN = 'ci-token-never-shown-9';

function projectYaml(name: string, inventory = '[web]\\nweb1', withOld = true): string {
  return `project: { name: ${name}, alert: false, max_parallel_tasks: 2 }
keys:
  - { name: deploy, type: ssh, ssh: { login: git, private_key: { file: ./id_ed25519 } } }
  - { name: vault, type: login_password, login_password: { login: ci, password: { env: VAULT_PASSWORD } } }
repositories: [{ name: app, git_url: https://github.com/x/app.git, git_branch: main, ssh_key: none }]
inventories:  [{ name: prod, type: static, inventory: "${inventory}", ssh_key: deploy }]
variable_groups:
  - { name: prod-vars, json: { region: eu }, env: {}, secrets: [{ name: TOKEN, env: CI_TOKEN }] }
  - { name: shared-vars, json: { tier: web }, env: {} }
views: [{ title: Prod, position: 0 }]
templates:
  - name: Deploy
    app: bash
    playbook: deploy.sh
    repository: app
    inventory: prod
    environment: prod-vars
    variable_groups: [prod-vars, shared-vars]
    view: Prod
schedules:
  - { name: nightly, template: Deploy, cron: "0 3 * * *", active: true }
${withOld ? '  - { name: old, template: Deploy, cron: "0 4 * * *", active: false }\n' : ''}integrations: [{ name: hook, template: Deploy }]
team: [{ user: cluster-admin, role: owner }, { user: alice, role: manager }]
`;
}

describe.each(engines.map((e) => [e.name, e] as const))(
  'gantry apply and export (%s)',
  { timeout: 60_000 },
  (_n, engine) => {
    let node: ServerNode;
    let admin: Caller;
    let drop: () => Promise<void>;
    let env: Record<string, string>;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-cac-'));
    const gantry = (args: string[]) => cli(env, args);

    beforeAll(async () => {
      const db = await engine.create();
      drop = () => db.drop();
      node = await startNode('cac', db, randomBytes(32).toString('base64'));
      admin = await signInNode(node.base);
      const token = (await admin.post('/api/user/tokens', {})).json<{ id: string }>().id;
      env = { HOME: dir, GANTRY_URL: node.base, GANTRY_TOKEN: token, VAULT_PASSWORD, CI_TOKEN };
      const alice = { name: 'Alice', username: 'alice', email: 'alice@example.com', password: 'alice-pass-123' };
      expect((await admin.post('/api/users', alice)).statusCode).toBe(201);
      fs.writeFileSync(path.join(dir, 'id_ed25519'), PRIVATE_KEY);
    }, 60_000);

    afterAll(async () => {
      if (node) await stopNode(node);
      await drop?.();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    /** Everything apply manages in the project, and how many events it has: equal means nothing was written. */
    async function snapshot(projectId: number): Promise<unknown> {
      const paths = [
        'keys',
        'repositories',
        'inventory',
        'environment',
        'templates',
        'schedules',
        'integrations',
        'views',
        'users',
        'events',
      ];
      const parts = await Promise.all(
        paths.map(async (p) => (await admin.get(`/api/project/${projectId}/${p}`)).json()),
      );
      return { project: (await admin.get(`/api/project/${projectId}`)).json(), parts };
    }

    const projectId = async (name: string) =>
      (await admin.get('/api/projects')).json<{ id: number; name: string }[]>().find((p) => p.name === name)!.id;

    it('creates everything, then changes nothing; --dry-run shows the diff and --prune deletes', async () => {
      const file = path.join(dir, 'web.yaml');
      fs.writeFileSync(file, projectYaml('Web'));
      const first = await gantry(['apply', '-f', file]);
      expect(first.code, first.stderr).toBe(0);
      for (const line of [
        '+ project Web',
        '+ key deploy',
        '+ key None',
        '+ repository app',
        '+ inventory prod',
        '+ variable group prod-vars',
        '+ template Deploy',
        '+ schedule nightly',
        '+ integration hook',
        '+ view Prod',
        '+ member alice',
      ])
        expect(first.stdout).toContain(`${line}\n`);
      expect(first.stdout + first.stderr).not.toMatch(/never-shown|PRIVATE KEY/);
      const id = await projectId('Web');
      const project = (await admin.get(`/api/project/${id}`)).json<Record<string, unknown>>();
      expect(project).toMatchObject({ max_parallel_tasks: 2, managed_by_code: true });
      const templates = (await admin.get(`/api/project/${id}/templates`)).json<Record<string, unknown>[]>();
      const inventories = (await admin.get(`/api/project/${id}/inventory`)).json<{ id: number; name: string }[]>();
      const groups = (await admin.get(`/api/project/${id}/environment`)).json<Record<string, unknown>[]>();
      const group = (name: string) => groups.find((g) => g.name === name)!;
      const views = (await admin.get(`/api/project/${id}/views`)).json<{ id: number; title: string }[]>();
      expect(templates).toEqual([
        expect.objectContaining({
          name: 'Deploy',
          app: 'bash',
          inventory_id: inventories[0]!.id,
          environment_id: group('prod-vars').id,
          environment_ids: [group('prod-vars').id, group('shared-vars').id],
          view_id: views.find((v) => v.title === 'Prod')!.id,
        }),
      ]);
      expect(group('prod-vars')).toMatchObject({
        json: '{"region":"eu"}',
        secrets: [expect.objectContaining({ name: 'TOKEN' })],
      });

      const before = await snapshot(id);
      const again = await gantry(['apply', '-f', file]);
      expect(again).toMatchObject({ code: 0, stdout: 'Web: no changes\n' });
      expect(await snapshot(id)).toEqual(before);

      // A changed inventory and a schedule gone from the file: the dry run says so and writes nothing.
      fs.writeFileSync(file, projectYaml('Web', '[web]\\nweb2', false));
      const dry = await gantry(['apply', '-f', file, '--dry-run', '--prune']);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toBe(
        '~ inventory prod: inventory "[web]\\nweb1" -> "[web]\\nweb2"\n- schedule old\nWeb: 2 changes (dry run: nothing applied)\n',
      );
      expect(await snapshot(id)).toEqual(before);

      const pruned = await gantry(['apply', '-f', file, '--prune']);
      expect(pruned.code, pruned.stderr).toBe(0);
      expect(pruned.stdout).toContain('- schedule old\n');
      const schedules = (await admin.get(`/api/project/${id}/schedules`)).json<{ name: string }[]>();
      expect(schedules.map((s) => s.name)).toEqual(['nightly']);
      expect((await admin.get(`/api/project/${id}/inventory`)).json()).toEqual([
        expect.objectContaining({ inventory: '[web]\nweb2' }),
      ]);
    });

    it('round-trips apply → export → apply without a change, and refuses an inline secret', async () => {
      const file = path.join(dir, 'shop.yaml');
      fs.writeFileSync(file, projectYaml('Shop'));
      expect((await gantry(['apply', '-f', file])).code).toBe(0);
      const id = await projectId('Shop');
      const before = await snapshot(id);

      const out = path.join(dir, 'exported', 'shop.yaml');
      fs.mkdirSync(path.dirname(out));
      const exported = await gantry(['export', '--project', 'Shop', '--format', 'yaml', '--out', out]);
      expect(exported.code, exported.stderr).toBe(0);
      const text = fs.readFileSync(out, 'utf8');
      expect(text).not.toMatch(/never-shown|PRIVATE KEY/);
      expect(text).toContain('GANTRY_SECRET_KEY_DEPLOY');
      expect(text).toContain('repository: app');
      expect(text).toContain('view: Prod');
      expect(text).toMatch(/variable_groups:\n\s+- prod-vars\n\s+- shared-vars\n/);
      // Placeholders are not needed: nothing secret is written when nothing changed.
      const back = await gantry(['apply', '-f', path.dirname(out)]);
      expect(back).toMatchObject({ code: 0, stdout: 'Shop: no changes\n' });
      expect(await snapshot(id)).toEqual(before);

      // A dry run of a project still to be created resolves names to the objects it would create.
      const fresh = path.join(dir, 'fresh.yaml');
      fs.writeFileSync(fresh, projectYaml('Fresh'));
      const dry = await gantry(['apply', '-f', fresh, '--dry-run']);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toContain('+ project Fresh\n+ key deploy\n+ key vault\n+ key None\n+ repository app\n');
      expect(dry.stdout).toMatch(/\+ member alice\nFresh: 14 changes \(dry run: nothing applied\)\n$/);

      const inline = path.join(dir, 'inline.yaml');
      fs.writeFileSync(
        inline,
        'project: { name: Inline }\nkeys: [{ name: k, type: login_password, login_password: { login: u, password: hunter2 } }]\n',
      );
      const refused = await gantry(['apply', '-f', inline]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/keys\[k\]\.login_password\.password: an inline secret is refused/);
      expect(refused.stderr).not.toContain('hunter2');
      const names = (await admin.get('/api/projects')).json<{ name: string }[]>().map((p) => p.name);
      expect(names).not.toContain('Inline');
      expect(names).not.toContain('Fresh');
    });
  },
);
