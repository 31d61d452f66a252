import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const FILES: Record<string, string> = {
  'hello.sh': '#!/usr/bin/env bash\necho "Hello from Gantry, $(whoami)@$(hostname)"\nfor i in 1 2 3; do echo "step $i of 3"; sleep 1; done\necho "greeting: ${greeting:-hi}"\n',
  'ping.yml': '- hosts: all\n  gather_facts: false\n  tasks:\n    - name: Say hello\n      ansible.builtin.debug:\n        msg: "Hello {{ greeting | default(\'world\') }} from {{ inventory_hostname }}"\n',
  'README.md': '# Gantry demo\n\nScripts the demo project runs: `hello.sh` (Bash) and `ping.yml` (Ansible, on localhost).\n',
};

/**
 * A small local git repository for a demo project, so its templates run without any network.
 * Returns its path.
 */
export function createDemoRepository(root: string, projectId: number, systemPath: string): string {
  const dir = path.join(root, `project_${projectId}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(FILES)) fs.writeFileSync(path.join(dir, name), content);
  const env = { PATH: systemPath, GIT_AUTHOR_NAME: 'Gantry', GIT_AUTHOR_EMAIL: 'demo@gantry.local', GIT_COMMITTER_NAME: 'Gantry', GIT_COMMITTER_EMAIL: 'demo@gantry.local', HOME: dir };
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir, env });
  execFileSync('git', ['add', '-A'], { cwd: dir, env });
  execFileSync('git', ['commit', '-q', '-m', 'Gantry demo'], { cwd: dir, env });
  return dir;
}
