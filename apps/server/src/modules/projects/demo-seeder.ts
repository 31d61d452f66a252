import type { Actor } from '../../platform/resource-routes.js';
import type { EnvironmentsService } from '../environments/environments.service.js';
import type { InventoriesService } from '../inventories/inventories.service.js';
import type { KeysService } from '../keys/keys.service.js';
import type { RepositoriesService } from '../repositories/repositories.service.js';
import type { TemplatesService } from '../templates/templates.service.js';

export interface DemoDeps {
  keys: KeysService;
  repositories: RepositoriesService;
  environments: EnvironmentsService;
  inventories: InventoriesService;
  templates: TemplatesService;
  /** Makes the local repository the demo runs from; answers its path. */
  createRepository(projectId: number): string;
}

/** Fills a new demo project with what it takes to run two tasks at once: Bash and Ansible. */
export async function seedDemoProject(d: DemoDeps, actor: Actor, projectId: number): Promise<void> {
  const key = await d.keys.create(actor, projectId, { name: 'None', type: 'none', override_secret: false });
  const repo = await d.repositories.create(actor, projectId, { name: 'Demo scripts', git_url: d.createRepository(projectId), git_branch: '', ssh_key_id: key.id });
  const env = await d.environments.create(actor, projectId, { name: 'Demo variables', json: '{"greeting": "from the demo"}', env: '{}', secrets: [] });
  const inv = await d.inventories.create(actor, projectId, {
    name: 'Localhost',
    type: 'static',
    inventory: 'localhost ansible_connection=local',
    ssh_key_id: key.id,
    become_key_id: null,
    repository_id: null,
  });
  const common = {
    description: '',
    type: '' as const,
    repository_id: repo.id,
    environment_id: env.id,
    view_id: null,
    git_branch: null,
    runner_tag: null,
    start_version: null,
    build_template_id: null,
    autorun: false,
    arguments: null,
    allow_override_args_in_task: false,
    allow_override_branch_in_task: false,
    allow_extra_vars_in_task: false,
    suppress_success_alerts: false,
    survey_vars: [],
    vaults: [],
    task_params: {
      limit: [],
      tags: [],
      skip_tags: [],
      allow_debug: true,
      allow_override_limit: false,
      allow_override_tags: false,
      allow_override_skip_tags: false,
      allow_override_inventory: false,
      auto_approve: false,
      allow_auto_approve: false,
      allow_destroy: false,
      inventory_choices: [],
      allow_override_environment: false,
      environment_choices: [],
      branch_choices: [],
    },
  };
  await d.templates.create(actor, projectId, { ...common, name: 'Say hello (Bash)', app: 'bash', playbook: 'hello.sh', inventory_id: null });
  await d.templates.create(actor, projectId, { ...common, name: 'Ping localhost (Ansible)', app: 'ansible', playbook: 'ping.yml', inventory_id: inv.id });
}
