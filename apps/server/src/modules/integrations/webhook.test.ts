import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { authenticate, HMAC_TIMESTAMP_MAX_AGE_S, HMAC_TIMESTAMP_MAX_AHEAD_S } from './webhook-auth.js';
import { Delivery, atPath, extractedVariableProblem, matches, readValue } from './webhook-read.js';
import { bodyHashOf } from './webhook-replay.js';

const json = (v: unknown, headers: Record<string, string> = {}) =>
  new Delivery(headers, Buffer.from(JSON.stringify(v)));
const sign = (secret: string, body: Buffer) => createHmac('sha256', secret).update(body).digest('hex');

describe('reading a delivery', () => {
  const push = {
    ref: 'refs/heads/main',
    repository: { full_name: 'acme/app', private: false, id: 42 },
    commits: [{ id: 'abc' }, { id: 'def' }],
  };

  it('follows dotted paths through objects and arrays, own properties only', () => {
    expect(atPath(push, 'repository.full_name')).toBe('acme/app');
    expect(atPath(push, 'commits.1.id')).toBe('def');
    expect(atPath(push, 'commits.x')).toBeUndefined();
    expect(atPath(push, 'commits.9.id')).toBeUndefined();
    expect(atPath(push, 'ref.length')).toBeUndefined();
    expect(atPath(push, 'constructor')).toBeUndefined();
    expect(atPath(push, '__proto__')).toBeUndefined();
    expect(atPath(null, 'a')).toBeUndefined();
  });

  it('gives matchers JSON text for non-strings and extra variables the JSON value', () => {
    const d = json(push, { 'x-github-event': 'push' });
    expect(readValue(d, 'body', 'json', 'repository.id')).toEqual({ kind: 'value', text: '42', value: 42 });
    expect(readValue(d, 'body', 'json', 'repository.private')).toEqual({ kind: 'value', text: 'false', value: false });
    expect(readValue(d, 'body', 'json', 'commits.0')).toEqual({
      kind: 'value',
      text: '{"id":"abc"}',
      value: { id: 'abc' },
    });
    expect(readValue(d, 'body', 'json', 'nope')).toEqual({ kind: 'missing' });
    expect(readValue(d, 'header', null, 'X-GitHub-Event')).toEqual({ kind: 'value', text: 'push', value: 'push' });
    expect(readValue(d, 'header', null, 'X-Missing')).toEqual({ kind: 'missing' });
    expect(readValue(d, 'header', null, 'constructor')).toEqual({ kind: 'missing' });
    expect(readValue(new Delivery({ 'x-dup': ['a', 'b'] }, Buffer.alloc(0)), 'header', null, 'X-Dup')).toMatchObject({
      text: 'a, b',
    });
    expect(readValue(d, 'body', 'string', 'ignored')).toMatchObject({ kind: 'value', text: JSON.stringify(push) });
    expect(readValue(new Delivery({}, Buffer.from('{not json')), 'body', 'json', 'a')).toEqual({ kind: 'unreadable' });
    const deep = Buffer.from(`{"a":${'['.repeat(120_000)}${']'.repeat(120_000)}}`);
    expect(readValue(new Delivery({}, deep), 'body', 'json', 'a')).toEqual({ kind: 'unreadable' });
  });

  it('compares with equals, unequals and contains; unreadable never matches', () => {
    const v = { kind: 'value', text: 'refs/heads/main', value: 'refs/heads/main' } as const;
    expect(matches(v, 'equals', 'refs/heads/main')).toBe(true);
    expect(matches(v, 'unequals', 'refs/heads/main')).toBe(false);
    expect(matches(v, 'contains', 'heads/')).toBe(true);
    expect(matches({ kind: 'missing' }, 'equals', 'x')).toBe(false);
    expect(matches({ kind: 'missing' }, 'unequals', 'x')).toBe(true);
    expect(matches({ kind: 'missing' }, 'contains', 'x')).toBe(false);
    for (const m of ['equals', 'unequals', 'contains'] as const)
      expect(matches({ kind: 'unreadable' }, m, 'x')).toBe(false);
  });

  it('keeps webhook values away from the process search path, loader, tools, Ansible and GANTRY_ variables', () => {
    for (const type of ['environment', 'task']) {
      for (const name of ['PATH', 'GANTRY_TASK_ID', 'LD_PRELOAD', 'BASH_ENV', 'HOME', 'SHELLOPTS', 'PS4', 'GIT_SSH_COMMAND', 'ANSIBLE_CONFIG'])
        expect(extractedVariableProblem(type, name)).toBe(`Variable ${name} is reserved`);
      for (const name of ['COMMIT_SHA', 'branch', 'MY_PATH']) expect(extractedVariableProblem(type, name)).toBeNull();
    }
    // As extra variables they may not name Ansible's own variables either.
    for (const name of ['ansible_python_interpreter', 'hostvars']) {
      expect(extractedVariableProblem('task', name)).toBe(`Variable ${name} is reserved`);
      expect(extractedVariableProblem('environment', name)).toBeNull();
    }
  });
});

describe('authenticating a delivery', () => {
  const body = Buffer.from('{"zen":"Keep it logically awesome."}');
  const secret = { login: 'hook', password: 's3cret' };
  const d = (headers: Record<string, string>) => new Delivery(headers, body);

  it('accepts anything with none, and nothing without a secret otherwise', () => {
    expect(authenticate(d({}), 'none', null, null)).toBe(true);
    expect(
      authenticate(d({ 'x-hub-signature-256': `sha256=${sign('', body)}` }), 'github', null, {
        login: '',
        password: '',
      }),
    ).toBe(false);
    expect(authenticate(d({ 'x-token': 's3cret' }), 'token', 'X-Token', null)).toBe(false);
  });

  it('checks GitHub and Bitbucket signatures over the exact body', () => {
    expect(authenticate(d({ 'x-hub-signature-256': `sha256=${sign('s3cret', body)}` }), 'github', null, secret)).toBe(
      true,
    );
    expect(authenticate(d({ 'x-hub-signature-256': `sha256=${sign('other', body)}` }), 'github', null, secret)).toBe(
      false,
    );
    expect(authenticate(d({ 'x-hub-signature-256': sign('s3cret', body) }), 'github', null, secret)).toBe(false);
    expect(authenticate(d({}), 'github', null, secret)).toBe(false);
    expect(authenticate(d({ 'x-hub-signature': `sha256=${sign('s3cret', body)}` }), 'bitbucket', null, secret)).toBe(
      true,
    );
    expect(
      authenticate(d({ 'x-hub-signature-256': `sha256=${sign('s3cret', body)}` }), 'bitbucket', null, secret),
    ).toBe(false);
  });

  it('checks hmac (prefix optional, any hex case), token and basic', () => {
    const mac = sign('s3cret', body);
    expect(authenticate(d({ 'x-sig': mac }), 'hmac', 'X-Sig', secret)).toBe(true);
    expect(authenticate(d({ 'x-sig': `sha256=${mac.toUpperCase()}` }), 'hmac', 'X-Sig', secret)).toBe(true);
    expect(authenticate(d({ 'x-sig': mac.slice(1) }), 'hmac', 'X-Sig', secret)).toBe(false);
    expect(authenticate(d({ 'x-token': 's3cret' }), 'token', 'X-Token', secret)).toBe(true);
    expect(authenticate(d({ 'x-token': 's3cre' }), 'token', 'X-Token', secret)).toBe(false);
    const basic = (v: string) => ({ authorization: `Basic ${Buffer.from(v).toString('base64')}` });
    expect(authenticate(d(basic('hook:s3cret')), 'basic', null, secret)).toBe(true);
    expect(authenticate(d(basic('other:s3cret')), 'basic', null, secret)).toBe(false);
    expect(authenticate(d({ authorization: 'Basic !!!' }), 'basic', null, secret)).toBe(false);
    expect(authenticate(d({ authorization: 'Bearer s3cret' }), 'basic', null, secret)).toBe(false);
  });
  it('checks a timestamped hmac over <timestamp>.<body>, within 5 minutes back and 1 minute ahead', () => {
    const now = new Date('2026-11-25T12:00:00Z');
    const at = (offset: number) => String(now.getTime() / 1000 + offset);
    const stamped = (stamp: string, signed = Buffer.concat([Buffer.from(`${stamp}.`), body])) =>
      d({ 'x-sig': sign('s3cret', signed), 'x-gantry-timestamp': stamp });
    expect(HMAC_TIMESTAMP_MAX_AGE_S).toBe(300);
    expect(HMAC_TIMESTAMP_MAX_AHEAD_S).toBe(60);
    for (const offset of [0, -300, 60])
      expect(authenticate(stamped(at(offset)), 'hmac', 'X-Sig', secret, now)).toBe(true);
    for (const offset of [-301, 61])
      expect(authenticate(stamped(at(offset)), 'hmac', 'X-Sig', secret, now)).toBe(false);
    // Signed without the timestamp, or with another one: refused.
    expect(authenticate(stamped(at(0), body), 'hmac', 'X-Sig', secret, now)).toBe(false);
    expect(
      authenticate(stamped(at(0), Buffer.concat([Buffer.from(`${at(-1)}.`), body])), 'hmac', 'X-Sig', secret, now),
    ).toBe(false);
    for (const stamp of ['', 'now', '1.5', '-1', `${at(0)}000000`])
      expect(authenticate(stamped(stamp), 'hmac', 'X-Sig', secret, now)).toBe(false);
    // Other methods do not read the header.
    const gh = d({ 'x-hub-signature-256': `sha256=${sign('s3cret', body)}`, 'x-gantry-timestamp': 'junk' });
    expect(authenticate(gh, 'github', null, secret, now)).toBe(true);
  });

  it('remembers GitHub and Bitbucket deliveries by body, timestamped hmac ones by what is signed', () => {
    const hex = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
    expect(bodyHashOf(d({}), 'github')).toBe(hex(body));
    expect(bodyHashOf(d({ 'x-request-uuid': 'x' }), 'bitbucket')).toBe(hex(body));
    expect(bodyHashOf(d({ 'x-gantry-timestamp': '1700000000' }), 'hmac')).toBe(hex(`1700000000.${body.toString()}`));
    expect(bodyHashOf(d({}), 'hmac')).toBeNull();
    for (const m of ['none', 'token', 'basic'] as const)
      expect(bodyHashOf(d({ 'x-gantry-timestamp': '1' }), m)).toBeNull();
  });
});
