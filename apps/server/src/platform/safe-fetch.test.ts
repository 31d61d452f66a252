import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpReceiver } from '../test/http-receiver.js';
import { json, redirect, startJsonServer, type JsonServer } from '../test/json-server.js';
import { isBlockedAddress } from './ip-ranges.js';
import { safeFetch, SafeFetchError, type SafeFetchOptions } from './safe-fetch.js';

describe('isBlockedAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '198.18.0.1',
    '::',
    '::1',
    '0:0:0:0:0:0:0:1',
    'fe80::1',
    'fe80::1%eth0',
    'febf::1',
    'fc00::1',
    'fd12:3456:789a::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '::ffff:192.168.0.1',
    '::127.0.0.1',
    '64:ff9b::a00:1',
    '64:ff9b::169.254.169.254',
    '2002:a00:1::1',
    '2002:7f00:1::',
    '2001:db8::1',
    'not-an-address',
  ])('refuses %s', (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '172.15.255.255',
    '100.128.0.1',
    '192.169.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '2002:808:808::1',
    '64:ff9b::808:808',
  ])('lets %s through', (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });
});

/** A fetch's failure code (or 'ok'). */
async function outcome(url: string, opts: Partial<SafeFetchOptions> = {}): Promise<string> {
  try {
    await safeFetch(url, { timeoutMs: 2000, maxBytes: 1000, ...opts });
    return 'ok';
  } catch (e) {
    if (!(e instanceof SafeFetchError)) throw e;
    return e.code;
  }
}

describe('safeFetch', () => {
  let server: JsonServer;
  const port = () => new URL(server.url).port;
  /** Names no real resolver knows: they reach the test server only through the pinned address. */
  const resolve = async (host: string) => {
    const table: Record<string, Array<{ address: string; family: number }>> = {
      'opts.test': [{ address: '127.0.0.1', family: 4 }],
      'mixed.test': [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ],
      'metadata.test': [{ address: '169.254.169.254', family: 4 }],
      'v6.test': [{ address: '::1', family: 6 }],
    };
    const found = table[host];
    if (!found) throw new Error('ENOTFOUND');
    return found;
  };

  beforeAll(async () => {
    server = await startJsonServer();
    server.route('/list', json(['a', 'b']));
    server.route('/big', json('x'.repeat(5000)));
    server.route('/chunked', (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < 10; i += 1) res.write('x'.repeat(200));
      res.end();
    });
    server.route('/slow', () => {
      // Never answers: the deadline must end the fetch.
    });
    server.route('/fail', json({ error: 'down' }, 500));
    server.route('/to-list', redirect('/list'));
    server.route('/to-loopback', (res) => redirect(`http://127.0.0.1:${port()}/list`)(res));
    server.route('/to-metadata', redirect('http://169.254.169.254/latest/meta-data/'));
    server.route('/to-file', redirect('file:///etc/passwd'));
    server.route('/loop', redirect('/loop'));
  });
  afterAll(() => server.close());

  it('fetches an allowed host and answers status, type and body', async () => {
    const r = await safeFetch(`${server.url}/list`, { timeoutMs: 2000, maxBytes: 1000, allowedHosts: ['127.0.0.1'] });
    expect(r).toEqual({ status: 200, contentType: 'application/json', body: '["a","b"]' });
  });

  it('refuses loopback, private, link-local and v6 loopback addresses without the allow list', async () => {
    expect(await outcome(`${server.url}/list`)).toBe('url_private_address');
    expect(await outcome(`http://10.1.2.3:${port()}/list`)).toBe('url_private_address');
    expect(await outcome(`http://[::1]:${port()}/list`)).toBe('url_private_address');
    expect(await outcome(`http://[::ffff:127.0.0.1]:${port()}/list`)).toBe('url_private_address');
    expect(await outcome('http://169.254.169.254/latest/meta-data/')).toBe('url_private_address');
    // Names are judged by every address they resolve to.
    expect(await outcome(`http://opts.test:${port()}/list`, { resolve })).toBe('url_private_address');
    expect(await outcome('http://metadata.test/', { resolve })).toBe('url_private_address');
    expect(await outcome('http://v6.test/', { resolve })).toBe('url_private_address');
    expect(await outcome('http://mixed.test/', { resolve })).toBe('url_private_address');
    // Allowing one host allows no other.
    expect(await outcome(`http://10.1.2.3:${port()}/list`, { allowedHosts: ['127.0.0.1'] })).toBe(
      'url_private_address',
    );
  });

  it('connects to the checked address: an allowed name reaches the address it resolved to', async () => {
    expect(await outcome(`http://opts.test:${port()}/list`, { resolve, allowedHosts: ['opts.test'] })).toBe('ok');
    expect(
      await outcome(`http://opts.test.:${port()}/list`, {
        resolve: (h) => resolve(h.replace(/\.$/, '')),
        allowedHosts: ['OPTS.test'],
      }),
    ).toBe('ok');
    expect(server.hits.at(-1)).toBe('/list');
  });

  it('refuses other schemes and credentials in the URL', async () => {
    expect(await outcome('ftp://example.com/x')).toBe('url_invalid');
    expect(await outcome('file:///etc/passwd')).toBe('url_invalid');
    expect(await outcome(`http://user:pw@127.0.0.1:${port()}/list`, { allowedHosts: ['127.0.0.1'] })).toBe(
      'url_invalid',
    );
    expect(await outcome('not a url')).toBe('url_invalid');
    expect(await outcome('http://unknown.test/', { resolve })).toBe('url_unreachable');
  });

  it('follows a redirect only to a URL that passes the same checks, at most three', async () => {
    const viaName = { resolve, allowedHosts: ['opts.test'] };
    expect(await outcome(`http://opts.test:${port()}/to-list`, viaName)).toBe('ok');
    // opts.test is allowed, 127.0.0.1 by itself is not.
    expect(await outcome(`http://opts.test:${port()}/to-loopback`, viaName)).toBe('url_private_address');
    expect(await outcome(`http://opts.test:${port()}/to-metadata`, viaName)).toBe('url_private_address');
    expect(await outcome(`http://opts.test:${port()}/to-file`, viaName)).toBe('url_invalid');
    expect(await outcome(`http://opts.test:${port()}/loop`, viaName)).toBe('url_redirects');
    expect(server.hits.filter((h) => h === '/loop')).toHaveLength(4);
  });

  it('stops at the deadline', async () => {
    const started = Date.now();
    expect(await outcome(`${server.url}/slow`, { allowedHosts: ['127.0.0.1'], timeoutMs: 300 })).toBe('url_timeout');
    expect(Date.now() - started).toBeLessThan(2000);
    // A resolver that never answers does not hold the fetch past its deadline either.
    const hanging = () => new Promise<never>(() => {});
    expect(await outcome('http://hang.test/', { resolve: hanging, timeoutMs: 200 })).toBe('url_timeout');
  });

  it('stops past the size limit, announced or not', async () => {
    const allowed = { allowedHosts: ['127.0.0.1'] };
    expect(await outcome(`${server.url}/big`, allowed)).toBe('url_too_large');
    expect(await outcome(`${server.url}/chunked`, allowed)).toBe('url_too_large');
    expect(await outcome(`${server.url}/chunked`, { ...allowed, maxBytes: 2000 })).toBe('ok');
  });

  it('fails on an error status', async () => {
    expect(await outcome(`${server.url}/fail`, { allowedHosts: ['127.0.0.1'] })).toBe('url_status');
  });

  it("POSTs the caller's body and headers", async () => {
    const receiver = await startHttpReceiver();
    try {
      const r = await safeFetch(`${receiver.url}/hook`, {
        timeoutMs: 2000,
        maxBytes: 1000,
        allowedHosts: ['127.0.0.1'],
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-test': 'yes' },
        body: '{"a":"ü"}',
      });
      expect(r.status).toBe(200);
      expect(receiver.requests[0]).toMatchObject({
        method: 'POST',
        path: '/hook',
        body: '{"a":"ü"}',
        json: { a: 'ü' },
      });
      expect(receiver.requests[0]!.headers['x-test']).toBe('yes');
      expect(receiver.requests[0]!.headers['user-agent']).toBe('Gantry');
    } finally {
      await receiver.close();
    }
  });

  it('answers any status and does not follow a redirect when asked', async () => {
    const allowed = { allowedHosts: ['127.0.0.1'], timeoutMs: 2000, maxBytes: 1000 };
    const before = server.hits.length;
    const moved = await safeFetch(`${server.url}/to-list`, { ...allowed, followRedirects: false, anyStatus: true });
    expect(moved.status).toBe(302);
    expect(server.hits.slice(before)).toEqual(['/to-list']);
    expect(await outcome(`${server.url}/to-list`, { ...allowed, followRedirects: false })).toBe('url_status');
    const failed = await safeFetch(`${server.url}/fail`, { ...allowed, anyStatus: true });
    expect(failed).toEqual({ status: 500, contentType: 'application/json', body: '{"error":"down"}' });
    // Still checked: the address guard and the size limit apply to any status.
    expect(await outcome(`http://10.1.2.3:${port()}/fail`, { anyStatus: true })).toBe('url_private_address');
  });
});
