import type { Environment } from '@gantry/contracts';
import type { EnvironmentWithSecrets } from './environments.repository.js';

/** Secrets are listed by name and type; their values never leave the server. */
export function presentEnvironment(row: EnvironmentWithSecrets): Environment {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    json: row.json,
    env: row.env,
    password: null,
    secrets: row.secrets.map((s) => ({ id: s.id, name: s.name, type: s.type === 'env' ? 'env' : 'var' })),
  };
}
