import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../../test/engines.js';
import { gitRepo } from '../../test/git-fixture.js';
import type { Caller } from '../../test/harness.js';
import { setupTemplate } from '../../test/tasks.js';
import { freePort, SERVER_BIN, signInNode, startNode, stopNode, type ServerNode } from '../../test/server-process.js';

// The client commands of the built CLI (`npm run build` first) against a real server process.

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with only the given environment (no GANTRY_* of the runner's), feeding `input` on stdin. */
function cli(
  env: Record<string, string>,
  args: string[],
  input = '',
  onStdout?: (text: string) => void,
): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn('node', [SERVER_BIN, ...args], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      onStdout?.(stdout);
    });
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe.each(engines.map((e) => [e.name, e] as const))(
  'gantry client commands (%s)',
  { timeout: 120_000 },
  (_name, engine) => {
    let node: ServerNode;
    let admin: Caller;
    let token: string;
    let drop: () => Promise<void>;
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-client-'));
    const configDir = path.join(home, 'config');
    const env = { HOME: home, XDG_CONFIG_HOME: configDir };
    const gantry = (args: string[], input?: string) => cli(env, args, input);

    beforeAll(async () => {
      const db = await engine.create();
      drop = () => db.drop();
      node = await startNode('client', db, randomBytes(32).toString('base64'));
      admin = await signInNode(node.base);
      token = (await admin.post('/api/user/tokens', {})).json<{ id: string }>().id;
    }, 60_000);

    afterAll(async () => {
      if (node) await stopNode(node);
      await drop?.();
      fs.rmSync(home, { recursive: true, force: true });
    });

    it('logs in with a checked token into a 0600 profile and refuses a wrong one', async () => {
      const wrong = await gantry(['login', '--url', node.base, '--token-stdin'], 'not-a-token\n');
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toMatch(/refused the token: Invalid or expired token/);
      expect(fs.existsSync(path.join(configDir, 'gantry', 'config.json'))).toBe(false);

      const ok = await gantry(['login', '--url', `${node.base}/`, '--token-stdin'], `${token}\n`);
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toMatch(/Logged in to http:\/\/127\.0\.0\.1:\d+ as cluster-admin \(profile default/);
      expect(ok.stdout + ok.stderr).not.toContain(token);
      const file = path.join(configDir, 'gantry', 'config.json');
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
      expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ profiles: { default: { url: node.base, token } } });

      // In argv it works but is warned about; the environment overrides a profile.
      const argv = await gantry(['login', '--url', node.base, '--token', token, '--profile', 'second']);
      expect(argv.code).toBe(0);
      expect(argv.stderr).toMatch(/prefer --token-stdin/);
      const byEnv = await cli({ ...env, GANTRY_TOKEN: 'bad-token' }, ['projects', 'list']);
      expect(byEnv).toMatchObject({ code: 1, stderr: expect.stringMatching(/Invalid or expired token/) });
      expect((await gantry(['logout', '--profile', 'second'])).code).toBe(0);
      expect(await gantry(['projects', 'list', '--profile', 'second'])).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/No profile "second"/),
      });
    });

    it('manages projects, keys (secrets from stdin only) and templates, and runs tasks with --follow', async () => {
      const created = await gantry(['projects', 'create', '--set', 'name=CLI project', '--output', 'json']);
      expect(created.code, created.stderr).toBe(0);
      const projectId = JSON.parse(created.stdout).id as number;
      const list = await gantry(['projects', 'list', '--output', 'json']);
      expect(JSON.parse(list.stdout)).toEqual(
        expect.arrayContaining([expect.objectContaining({ id: projectId, name: 'CLI project' })]),
      );
      expect((await gantry(['projects', 'list'])).stdout).toMatch(
        new RegExp(`^ID +NAME[^\\n]*\\n(.*\\n)*${projectId} +CLI project `, 'm'),
      );

      // A key's secret from stdin: stored, never printed back.
      const secret = 'pw-never-shown-42';
      const key = await gantry(
        [
          'keys',
          'create',
          '--project',
          'CLI project',
          '--set',
          'name=deploy',
          '--set',
          'type=login_password',
          '--set',
          'login_password.login=ops',
          '--secret-stdin',
          '--output',
          'json',
        ],
        `${secret}\n`,
      );
      expect(key.code, key.stderr).toBe(0);
      expect(key.stdout).not.toContain(secret);
      const keyId = JSON.parse(key.stdout).id as number;
      const shown = await gantry(['keys', 'get', String(keyId), '--project', String(projectId)]);
      expect(shown.stdout).toMatch(/login_password +\{"login":"ops","password":""\}/);
      expect(shown.stdout).not.toContain(secret);
      expect(
        await gantry([
          'keys',
          'update',
          String(keyId),
          '--project',
          String(projectId),
          '--set',
          'login_password.password=x',
        ]),
      ).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/is a secret: give it in --file/),
      });

      const none = JSON.parse(
        (
          await gantry([
            'keys',
            'create',
            '--project',
            String(projectId),
            '--set',
            'name=none',
            '--set',
            'type=none',
            '--output',
            'json',
          ])
        ).stdout,
      );
      const repoDir = gitRepo({
        'ok.sh': 'echo hello-from-cli\n',
        'fail.sh': 'echo about-to-fail\nexit 3\n',
        'slow.sh': 'echo slow-started\nsleep 60\n',
      });
      const repo = await gantry([
        'repositories',
        'create',
        '--project',
        String(projectId),
        '--set',
        'name=repo',
        '--set',
        `git_url=${repoDir}`,
        '--set',
        `ssh_key_id=${none.id}`,
        '--output',
        'json',
      ]);
      expect(repo.code, repo.stderr).toBe(0);
      const group = await gantry(
        ['variable-groups', 'create', '--project', String(projectId), '--file', '-', '--output', 'json'],
        JSON.stringify({ name: 'env', json: '{}', env: '{}' }),
      );
      expect(group.code, group.stderr).toBe(0);
      const templateFile = path.join(home, 'template.json');
      for (const [name, script] of [
        ['ok', 'ok.sh'],
        ['fail', 'fail.sh'],
        ['slow', 'slow.sh'],
      ]) {
        fs.writeFileSync(
          templateFile,
          JSON.stringify({
            name,
            app: 'bash',
            playbook: script,
            repository_id: JSON.parse(repo.stdout).id,
            environment_id: JSON.parse(group.stdout).id,
          }),
        );
        const tpl = await gantry(['templates', 'create', '--project', String(projectId), '--file', templateFile]);
        expect(tpl.code, tpl.stderr).toBe(0);
        expect(tpl.stdout).toMatch(new RegExp(`^name +${name}$`, 'm'));
      }
      expect((await gantry(['templates', 'list', '--project', 'CLI project'])).stdout).toMatch(
        /^\d+ +fail +bash +fail\.sh/m,
      );

      const ok = await gantry(['run', 'CLI project/ok', '--follow', '--message', 'from the CLI']);
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toMatch(
        new RegExp(`Task #\\d+ of CLI project/ok started: ${node.base}/project/${projectId}/history\\?t=\\d+`),
      );
      expect(ok.stdout).toMatch(/^hello-from-cli$/m);
      expect(ok.stdout).toMatch(/Task #\d+ ended: success/);
      expect(ok.stderr).not.toMatch(/Live log unavailable/);

      const failed = await gantry(['run', `${projectId}/fail`, '--follow']);
      expect(failed.code).toBe(1);
      expect(failed.stdout).toMatch(/^about-to-fail$/m);
      expect(failed.stdout).toMatch(/ended: error/);

      // Stopped from elsewhere while followed: exit 2.
      let stopping: Promise<unknown> | undefined;
      const stopped = await cli(env, ['run', 'CLI project/slow', '--follow'], '', (out) => {
        const id = /Task #(\d+)/.exec(out)?.[1];
        if (!stopping && id && out.includes('slow-started'))
          stopping = admin.post(`/api/project/${projectId}/tasks/${id}/stop`, {});
      });
      expect(stopped.code, stopped.stderr).toBe(2);
      expect(stopped.stdout).toMatch(/ended: stopped/);

      // Without --follow: started, exit 0, the task's JSON with --output json.
      const started = await gantry(['run', 'CLI project/ok', '--output', 'json']);
      expect(started.code).toBe(0);
      expect(JSON.parse(started.stdout)).toMatchObject({ project_id: projectId, message: '' });

      expect(await gantry(['run', 'CLI project/nope'])).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/No template "nope"/),
      });
      expect((await gantry(['keys', 'delete', String(keyId), '--project', String(projectId)])).stdout).toMatch(
        `Deleted key ${keyId}`,
      );
    });

    it('lists and runs workflows, following each node until the run ends', async () => {
      // Its own connection (not the profile the login test stores), so it runs alone too.
      const wenv = { ...env, GANTRY_URL: node.base, GANTRY_TOKEN: token };
      const wf = (args: string[]) => cli(wenv, args);
      const projectId = (await admin.post('/api/projects', { name: 'WF project' })).json<{ id: number }>().id;
      const repoDir = gitRepo({
        'ok.sh': 'echo ok\n',
        'fail.sh': 'echo failing\nexit 3\n',
        'slow.sh': 'echo slow-started\nsleep 60\n',
      });
      const s = await setupTemplate(admin, projectId, repoDir, { name: 'ok', playbook: 'ok.sh' });
      const template = async (name: string, playbook: string) =>
        (
          await admin.post(`/api/project/${projectId}/templates`, {
            name,
            app: 'bash',
            playbook,
            repository_id: s.repositoryId,
            environment_id: s.environmentId,
          })
        ).json<{ id: number }>().id;
      const fail = await template('fail', 'fail.sh');
      const slow = await template('slow', 'slow.sh');
      const workflow = async (name: string, nodes: object[], edges: object[] = []) => {
        const res = await admin.post(`/api/project/${projectId}/workflows`, {
          name,
          description: `${name} flow`,
          nodes,
          edges,
        });
        expect(res.statusCode, res.body).toBe(201);
        return res.json<{ id: number }>().id;
      };
      const pipeline = await workflow(
        'pipeline',
        [
          { id: 'build', type: 'template', template_id: s.templateId },
          { id: 'test', type: 'template', template_id: s.templateId },
        ],
        [{ from: 'build', to: 'test', on: 'success' }],
      );
      const broken = await workflow('broken', [{ id: 'deploy', type: 'template', template_id: fail, retries: 1 }]);
      await workflow('long', [{ id: 'wait', type: 'template', template_id: slow }]);

      const list = await wf(['workflows', 'list', '--project', 'WF project']);
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toMatch(/^ID +NAME +DESCRIPTION +UPDATED$/m);
      expect(list.stdout).toMatch(new RegExp(`^${pipeline} +pipeline +pipeline flow `, 'm'));
      const listed = JSON.parse(
        (await wf(['workflows', 'list', '--project', String(projectId), '--output', 'json'])).stdout,
      );
      expect(listed.map((w: { name: string }) => w.name).sort()).toEqual(['broken', 'long', 'pipeline']);
      const got = await wf(['workflows', 'get', String(pipeline), '--project', 'WF project', '--output', 'json']);
      expect(JSON.parse(got.stdout)).toMatchObject({ id: pipeline, nodes: [{ id: 'build' }, { id: 'test' }] });

      // To success: each node's changes as lines, exit 0.
      const ok = await wf(['workflows', 'run', 'WF project/pipeline', '--follow']);
      expect(ok.code, ok.stderr).toBe(0);
      const runId = /Workflow run #(\d+) of WF project\/pipeline started: (\S+)/.exec(ok.stdout);
      expect(runId?.[2]).toBe(`${node.base}/project/${projectId}/workflows/${pipeline}/runs/${runId?.[1]}`);
      expect(ok.stdout).toMatch(/^build {2}success {2}attempts 1 {2}tasks #\d+$/m);
      expect(ok.stdout).toMatch(/^test {2}success {2}attempts 1 {2}tasks #\d+$/m);
      expect(ok.stdout.indexOf('build  success')).toBeLessThan(ok.stdout.indexOf('test  success'));
      expect(ok.stdout).toMatch(new RegExp(`Workflow run #${runId?.[1]} ended: success\\n$`));
      // A line per change only: the same state is never printed twice.
      const lines = ok.stdout.split('\n').filter((l) => /^(build|test) /.test(l));
      expect(new Set(lines).size).toBe(lines.length);

      // To failure, by id, as JSON: the started run and the final one on stdout, progress on stderr, exit 1.
      const failed = await wf(['workflows', 'run', `${projectId}/${broken}`, '--follow', '--output', 'json']);
      expect(failed.code, failed.stderr).toBe(1);
      const docs = failed.stdout.split(/\n(?=\{\n)/).map((d) => JSON.parse(d));
      expect(docs).toHaveLength(2);
      expect(docs[0]).toMatchObject({ workflow_id: broken, status: 'running' });
      expect(docs[1]).toMatchObject({
        id: docs[0].id,
        status: 'failed',
        nodes: [{ id: 'deploy', status: 'failed', attempts: 2 }],
      });
      expect(docs[1].nodes[0].task_ids).toHaveLength(2);
      expect(failed.stderr).toMatch(/^deploy {2}failed {2}attempts 2 {2}tasks #\d+,#\d+$/m);

      // Stopped from elsewhere while followed: exit 2.
      let stopping: Promise<unknown> | undefined;
      const stopped = await cli(wenv, ['workflows', 'run', 'WF project/long', '--follow'], '', (out) => {
        const id = /Workflow run #(\d+)/.exec(out)?.[1];
        if (!stopping && id && /^wait {2}running /m.test(out))
          stopping = admin.post(
            `/api/project/${projectId}/workflows/${listed.find((w: { name: string }) => w.name === 'long').id}/runs/${id}/stop`,
            {},
          );
      });
      expect(stopped.code, stopped.stderr).toBe(2);
      expect(stopped.stdout).toMatch(/^wait {2}stopped /m);
      expect(stopped.stdout).toMatch(/ended: stopped\n$/);

      // Without --follow: started, exit 0.
      const started = await wf(['workflows', 'run', 'WF project/pipeline']);
      expect(started.code).toBe(0);
      expect(started.stdout).toMatch(/^Workflow run #\d+ of WF project\/pipeline started: /);

      // Bad names and usage: a clear message, exit 1.
      expect(await wf(['workflows', 'run', 'WF project/nope', '--follow'])).toMatchObject({
        code: 1,
        stderr: 'No workflow "nope"\n',
      });
      expect(await wf(['workflows', 'run', 'No such project/pipeline'])).toMatchObject({
        code: 1,
        stderr: 'No project "No such project"\n',
      });
      expect(await wf(['workflows', 'run', 'WF project'])).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/^Usage: gantry workflows run <project>\/<workflow>/),
      });
      expect(await wf(['workflows', 'start'])).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/^Usage: gantry workflows list\|get\|create\|update\|delete\|run /),
      });
    }, 240_000);

    it('reports an unreachable server clearly', async () => {
      const url = `http://127.0.0.1:${await freePort()}`;
      const res = await cli({ ...env, GANTRY_URL: url, GANTRY_TOKEN: 't' }, ['projects', 'list']);
      expect(res).toMatchObject({ code: 1, stderr: `Cannot reach ${url}: connection refused\n` });
    });

    it('prints completion scripts; the bash one parses', async () => {
      const bash = await gantry(['completion', 'bash']);
      expect(bash.stdout).toMatch(/complete -o default -F _gantry gantry/);
      const file = path.join(home, 'gantry.bash');
      fs.writeFileSync(file, bash.stdout);
      const check = await new Promise<number | null>((resolve) => spawn('bash', ['-n', file]).on('close', resolve));
      expect(check).toBe(0);
      expect((await gantry(['completion', 'zsh'])).stdout).toMatch(/compdef _gantry gantry/);
      expect(bash.stdout).toMatch(/^ +workflows\) subs="list get create update delete run"; flags="[^"]*--follow/m);
      expect((await gantry(['completion', 'zsh'])).stdout).toMatch(
        /^ +workflows\) subs=\(list get create update delete run\)/m,
      );
      const fish = (await gantry(['completion', 'fish'])).stdout;
      expect(fish).toMatch(/complete -c gantry .* -l secret-stdin/);
      expect(fish).toMatch(/complete -c gantry -n '__fish_seen_subcommand_from workflows' -l follow/);
    });
  },
);
