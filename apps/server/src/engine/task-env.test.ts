import { describe, expect, it } from 'vitest';
import { checkUntrustedVars, userEnvironment } from './task-env.js';

/** What a run's context holds of variables (the rest of RunContext plays no part here). */
const run = (o: {
  groupEnv?: Record<string, string>;
  taskEnv?: Record<string, string>;
  untrustedVars?: Record<string, unknown>;
  app?: string;
}) => ({
  groupEnv: o.groupEnv ?? {},
  taskEnv: o.taskEnv ?? {},
  untrustedVars: o.untrustedVars ?? {},
  template: { app: o.app ?? 'bash' },
});

/** Whatever reached the database (an old row, a restored backup, a runner's job) is checked again before the process starts. */
describe('the environment of a run, checked again at run time', () => {
  it('fails on connection, trust and tool options from task input', () => {
    for (const name of [
      'HTTPS_PROXY',
      'VAULT_ADDR',
      'TF_CLI_ARGS',
      'GLIBC_TUNABLES',
      'NPM_CONFIG_REGISTRY',
      'SSL_CERT_FILE',
    ]) {
      expect(() => userEnvironment(run({ taskEnv: { [name]: 'x' } })), name).toThrow(
        `Environment variable ${name} of the task is not allowed`,
      );
      expect(() => checkUntrustedVars({ [name]: 'x' }), name).toThrow(`Variable ${name} of the task is not allowed`);
    }
  });

  it("fails when task input would replace one of the variable group's environment variables, and keeps the group's own", () => {
    const groupEnv = { DEPLOY_TARGET: 'prod', TF_VAR_region: 'eu-west-1' };
    expect(() => userEnvironment(run({ groupEnv, taskEnv: { DEPLOY_TARGET: 'attacker' } }))).toThrow(
      "Environment variable DEPLOY_TARGET of the task would replace the variable group's",
    );
    expect(() => userEnvironment(run({ groupEnv, untrustedVars: { DEPLOY_TARGET: 'attacker' } }))).toThrow(
      'Variable DEPLOY_TARGET of the task would replace an environment variable of the variable group',
    );
    // Terraform gets variables as TF_VAR_<name>.
    expect(() => userEnvironment(run({ groupEnv, untrustedVars: { region: 'us-east-1' }, app: 'terraform' }))).toThrow(
      'Variable region of the task would replace an environment variable of the variable group',
    );
    expect(userEnvironment(run({ groupEnv, untrustedVars: { region: 'us-east-1' }, app: 'bash' }))).toEqual(groupEnv);
    // The group's own (TF_LOG, proxies, endpoints: a manager's) are kept, with task input beside them.
    const managed = { TF_LOG: 'DEBUG', HTTPS_PROXY: 'http://proxy.corp:3128', VAULT_ADDR: 'https://vault.corp' };
    expect(
      userEnvironment(run({ groupEnv: managed, taskEnv: { COMMIT: 'abc' }, untrustedVars: { colour: 'red' } })),
    ).toEqual({
      ...managed,
      COMMIT: 'abc',
    });
  });
});
