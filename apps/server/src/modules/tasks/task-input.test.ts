import { templateTaskParamsSchema, type SurveyVar } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { ForbiddenError, ValidationError } from '../../platform/errors.js';
import { allowedParams, checkArguments, checkBranch, checkTaskVariables } from './task-input.js';

const tp = (o: object = {}) => templateTaskParamsSchema.parse(o);

describe('limit, tags and skip tags of a task', () => {
  const all = tp({ allow_override_limit: true, allow_override_tags: true, allow_override_skip_tags: true });

  it('refuses anything but plain host patterns and tags, naming the field', () => {
    const cases: Array<[string[], string]> = [
      [['localhost,@/etc/hostname'], 'Limit'],
      [['@x'], 'Limit'],
      [['-e'], 'Limit'],
      [['a,b'], 'Limit'],
      [['!web'], 'Limit'],
      [['web:!prod'], 'Limit'],
      [['web prod'], 'Limit'],
      [['a\nb'], 'Limit'],
    ];
    for (const [limit, field] of cases) {
      expect(() => allowedParams({ limit }, all), limit[0]).toThrow(ValidationError);
      expect(() => allowedParams({ limit }, all), limit[0]).toThrow(new RegExp(`^${field} item`));
    }
    expect(() => allowedParams({ tags: ['--skip'] }, all)).toThrow(/^Tags item "--skip"/);
    expect(() => allowedParams({ skip_tags: ['a,b'] }, all)).toThrow(/^Skip tags item "a,b"/);
  });

  it('takes host patterns, ranges and groups as Ansible writes them', () => {
    const limit = ['localhost', 'web*', 'db[0:3]', 'host-1.example.com', 'prod:web', 'fe80::1', '_all'];
    expect(allowedParams({ limit, tags: ['deploy'], skip_tags: ['slow_one'] }, all)).toEqual({
      limit,
      tags: ['deploy'],
      skip_tags: ['slow_one'],
    });
  });
});

describe('debug of a task', () => {
  it('is kept as asked (the run decides whether it applies, by template and author)', () => {
    expect(allowedParams({ debug: true, debug_level: 4 }, tp())).toEqual({ debug: true, debug_level: 4 });
    expect(allowedParams({ debug: true, debug_level: 4 }, tp({ allow_debug: true }))).toEqual({
      debug: true,
      debug_level: 4,
    });
    expect(allowedParams({ debug: false, debug_level: 4 }, tp({ allow_debug: true }))).toEqual({ debug: false });
  });
});

describe('variables of a task', () => {
  const survey = [{ name: 'version' }, { name: 'token' }] as SurveyVar[];

  it('refuses reserved names whatever the template allows', () => {
    for (const name of [
      'ansible_python_interpreter',
      'ansible_ssh_common_args',
      'hostvars',
      'LD_PRELOAD',
      'SHELLOPTS',
      'PS4',
      'GIT_SSH_COMMAND',
    ]) {
      expect(() => checkTaskVariables([name], survey, true)).toThrow(`Variable ${name} is reserved`);
    }
  });

  it('takes only survey variables unless free extra variables are allowed', () => {
    expect(() => checkTaskVariables(['version', 'token'], survey, false)).not.toThrow();
    expect(() => checkTaskVariables(['greeting'], survey, false)).toThrow(
      'Variable greeting is not a survey variable of this template',
    );
    expect(() => checkTaskVariables(['greeting'], survey, true)).not.toThrow();
  });
});

describe('arguments of a task', () => {
  it('need a manager, and refuse Ansible options that read files or run commands', () => {
    expect(() => checkArguments('["--forks","5"]', 'ansible', false)).toThrow(ForbiddenError);
    expect(checkArguments('[]', 'ansible', false)).toBe('[]');
    expect(checkArguments('["--forks","5"]', 'ansible', true)).toBe('["--forks","5"]');
    expect(() => checkArguments('["-e","@/etc/passwd"]', 'ansible', true)).toThrow('Argument -e is not allowed');
    expect(() => checkArguments('["--ssh-common-args=-o ProxyCommand=id"]', 'ansible', true)).toThrow(
      'Argument --ssh-common-args=-o ProxyCommand=id is not allowed',
    );
    // A script's arguments are its own; only Ansible's options are known here.
    expect(checkArguments('["-i","x"]', 'bash', true)).toBe('["-i","x"]');
  });
});

describe('branch of a task', () => {
  it('is a plain branch name', () => {
    for (const b of ['a..b', '../x', '@{-1}', 'main;id']) expect(() => checkBranch(b)).toThrow('Incorrect branch');
    expect(checkBranch('feature/x-1.2')).toBe('feature/x-1.2');
  });
});
