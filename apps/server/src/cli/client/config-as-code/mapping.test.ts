import { describe, expect, it } from 'vitest';
import { parseConfig } from './config-file.js';
import { secretVariable } from './export.js';
import { desiredBody, differences, type IdMaps } from './mapping.js';
import { KINDS } from './spec.js';

const kind = (section: string) => KINDS.find((k) => k.section === section)!;

describe('configuration files', () => {
  it('keeps only the sections a file gives and refuses inline secrets, naming the field', () => {
    const cfg = parseConfig('project: { name: Web }\nviews: [{ title: A }]\n', 'web.yaml');
    expect([...cfg.sections.keys()]).toEqual(['views']);
    expect(() =>
      parseConfig('project: { name: W }\nkeys: [{ name: k, type: ssh, ssh: { private_key: "-----BEGIN" } }]', 'w.yaml'),
    ).toThrow(
      'w.yaml: keys[k].ssh.private_key: an inline secret is refused; give {env: VARIABLE} or {file: path} instead',
    );
    expect(() =>
      parseConfig('project: { name: W }\nvariable_groups: [{ name: g, secrets: [{ name: T, value: x }] }]', 'w.yaml'),
    ).toThrow('w.yaml: variable_groups[g].secrets[T]: an inline secret is refused');
    expect(() => parseConfig('project: { name: W }\nkeys: [{ name: a }, { name: a }]', 'w.yaml')).toThrow(
      'keys names "a" twice',
    );
    expect(() => parseConfig('project: { name: W }\nhosts: []', 'w.yaml')).toThrow('unknown section "hosts"');
    expect(() => parseConfig('project: { name: W, colour: red }', 'w.yaml')).toThrow('project: unknown field "colour"');
  });
});

describe('mapping and diff', () => {
  const ids: IdMaps = new Map([['templates', new Map([['Deploy', 7]])]]);

  it('maps renamed fields and name references to the API body', () => {
    const body = desiredBody(
      kind('schedules'),
      { name: 'n', template: 'Deploy', cron: '0 3 * * *' },
      ids,
      'schedule n',
    );
    expect(body).toEqual({ name: 'n', template_id: 7, cron_format: '0 3 * * *' });
    expect(() => desiredBody(kind('schedules'), { name: 'n', template: 'Other' }, ids, 'schedule n')).toThrow(
      'schedule n.template: no templates entry "Other"',
    );
    expect(() => desiredBody(kind('schedules'), { name: 'n', cronn: 'x' }, ids, 'schedule n')).toThrow(
      'schedule n: unknown field "cronn"',
    );
  });

  it('compares only the fields the file gives, JSON text by content, empty as null', () => {
    const current = { id: 1, name: 'p', type: 'static', inventory: 'a', git_branch: null, ssh_key_id: 0 };
    expect(differences('inventories', { name: 'p', git_branch: '', ssh_key_id: null }, current)).toEqual([]);
    expect(differences('inventories', { inventory: 'b' }, current)).toEqual(['inventory "a" -> "b"']);
    expect(differences('integrations', { auth_method: 'none' }, { auth_method: '' })).toEqual([]);
    expect(differences('variable_groups', { json: '{"b":1,"a":2}' }, { json: '{"a":2,"b":1}' })).toEqual([]);
    // A key's login is compared only for its own type; its secret never.
    const key = { type: 'ssh', ssh: { login: 'git', private_key: '' }, login_password: { login: '' } };
    expect(differences('keys', { type: 'ssh', ssh: { login: 'git' } }, key)).toEqual([]);
    expect(differences('keys', { type: 'ssh', ssh: { login: 'root' } }, key)).toEqual(['ssh.login "git" -> "root"']);
  });

  it('names secret placeholders by kind and object', () => {
    expect(secretVariable('variable_group', 'prod-vars_TOKEN')).toBe('GANTRY_SECRET_VARIABLE_GROUP_PROD_VARS_TOKEN');
  });
});
