import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Attribute, Change, Client } from 'ldapts';
import { selfSignedCert } from './self-signed-cert.js';

const SLAPD = '/usr/sbin/slapd';
const SCHEMA_DIR = '/etc/ldap/schema';
const MODULE_DIR = '/usr/lib/ldap';

export const SUFFIX = 'dc=example,dc=org';
export const ADMIN_DN = `cn=admin,${SUFFIX}`;
export const ADMIN_PASSWORD = 'admin-secret';
export const PEOPLE = `ou=people,${SUFFIX}`;
export const GROUPS = `ou=groups,${SUFFIX}`;

/** The test tree's users: alice and bob sign in; carol is locked (ppolicy), dave is marked disabled. */
export const people = {
  alice: { uid: 'alice', password: 'alice-pass', cn: 'Alice Liddell', mail: 'alice@example.org' },
  bob: { uid: 'bob', password: 'bob-pass', cn: 'Bob Builder', mail: 'bob@example.org' },
  carol: { uid: 'carol', password: 'carol-pass', cn: 'Carol Locked', mail: 'carol@example.org' },
  dave: { uid: 'dave', password: 'dave-pass', cn: 'Dave Disabled', mail: 'dave@example.org' },
} as const;

export const dnOf = (uid: string) => `uid=${uid},${PEOPLE}`;

export interface Slapd {
  /** ldap:// (StartTLS offered). */
  url: string;
  port: number;
  /** ldaps:// on its own port. */
  ldapsUrl: string;
  /** The server's self-signed certificate (PEM), to trust as the CA. */
  caFile: string;
  /** Runs `fn` with a client bound as the directory's manager (to change the tree in a test). */
  admin<T>(fn: (client: Client) => Promise<T>): Promise<T>;
  addUser(uid: string, password: string, extra?: Record<string, string | string[]>): Promise<void>;
  deleteUser(uid: string): Promise<void>;
  addToGroup(group: string, uid: string): Promise<void>;
  stop(): Promise<void>;
}

/** Fails loudly, never skips: the LDAP tests need a real slapd (`.ci/run` installs it). */
export function assertSlapdInstalled(): void {
  if (!fs.existsSync(SLAPD)) throw new Error(`${SLAPD} not found: install slapd (apt-get install -y slapd ldap-utils)`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/**
 * An AppArmor profile for /usr/sbin/slapd (Ubuntu, some Debian hosts) confines it to /var/lib/ldap
 * and /etc/ldap: a copy of the binary in the temp folder is not under that profile.
 */
function slapdBinary(dir: string): string {
  const confined = fs.existsSync('/etc/apparmor.d/usr.sbin.slapd') && fs.existsSync('/sys/kernel/security/apparmor');
  if (!confined) return SLAPD;
  const copy = path.join(dir, 'slapd');
  fs.copyFileSync(SLAPD, copy);
  fs.chmodSync(copy, 0o755);
  return copy;
}

function slapdConf(dir: string, tls: { cert: string; key: string }): string {
  return [
    `include ${SCHEMA_DIR}/core.schema`,
    `include ${SCHEMA_DIR}/cosine.schema`,
    `include ${SCHEMA_DIR}/inetorgperson.schema`,
    `include ${SCHEMA_DIR}/nis.schema`,
    `pidfile ${dir}/slapd.pid`,
    `argsfile ${dir}/slapd.args`,
    `modulepath ${MODULE_DIR}`,
    `TLSCACertificateFile ${tls.cert}`,
    `TLSCertificateFile ${tls.cert}`,
    `TLSCertificateKeyFile ${tls.key}`,
    'moduleload back_mdb',
    'moduleload memberof',
    'moduleload ppolicy',
    'database mdb',
    `suffix "${SUFFIX}"`,
    `rootdn "${ADMIN_DN}"`,
    `rootpw ${ADMIN_PASSWORD}`,
    `directory ${dir}/db`,
    'maxsize 16777216',
    // Passwords: compared by bind only; everything else readable by a bound client.
    'access to attrs=userPassword by self write by anonymous auth by * none',
    'access to * by users read by anonymous auth',
    'overlay memberof',
    'memberof-group-oc groupOfNames',
    'memberof-member-ad member',
    'memberof-memberof-ad memberOf',
    'memberof-refint TRUE',
    'overlay ppolicy',
    '',
  ].join('\n');
}

async function waitForBind(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const until = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`slapd exited (${child.exitCode}): ${stderr()}`);
    const client = new Client({ url, connectTimeout: 500, timeout: 1000 });
    try {
      await client.bind(ADMIN_DN, ADMIN_PASSWORD);
      await client.unbind();
      return;
    } catch (err) {
      await client.unbind().catch(() => undefined);
      if (Date.now() > until) throw new Error(`slapd did not answer: ${(err as Error).message}; ${stderr()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * Starts a private slapd on a free local port (temp folder, slapd.conf, foreground) and loads the
 * test tree: ou=people (alice, bob, locked carol, disabled dave), ou=groups with groupOfNames
 * (memberOf kept by the memberof overlay) and a groupOfUniqueNames (found by group search only).
 */
export async function startSlapd(): Promise<Slapd> {
  assertSlapdInstalled();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-slapd-'));
  fs.mkdirSync(path.join(dir, 'db'));
  const { certFile: cert, keyFile: key } = selfSignedCert(dir);
  const tls = { cert, key };
  fs.writeFileSync(path.join(dir, 'slapd.conf'), slapdConf(dir, tls));
  const port = await freePort();
  const securePort = await freePort();
  const url = `ldap://127.0.0.1:${port}`;
  let err = '';
  const child = spawn(
    slapdBinary(dir),
    ['-f', path.join(dir, 'slapd.conf'), '-h', `ldap://127.0.0.1:${port}/ ldaps://127.0.0.1:${securePort}/`, '-d', '0'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  child.stderr?.on('data', (d: Buffer) => {
    err = (err + d.toString()).slice(-4000);
  });
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForBind(url, child, () => err);
  } catch (e) {
    await stop();
    throw e;
  }

  const admin = async <T>(fn: (client: Client) => Promise<T>): Promise<T> => {
    const client = new Client({ url, timeout: 5000, connectTimeout: 2000 });
    try {
      await client.bind(ADMIN_DN, ADMIN_PASSWORD);
      return await fn(client);
    } finally {
      await client.unbind().catch(() => undefined);
    }
  };
  const addUser = (uid: string, password: string, extra: Record<string, string | string[]> = {}) =>
    admin((c) =>
      c.add(dnOf(uid), {
        objectClass: ['inetOrgPerson'],
        uid,
        cn: uid,
        sn: uid,
        userPassword: password,
        ...extra,
      }),
    );

  await admin(async (c) => {
    await c.add(SUFFIX, { objectClass: ['dcObject', 'organization'], dc: 'example', o: 'Example' });
    await c.add(PEOPLE, { objectClass: ['organizationalUnit'], ou: 'people' });
    await c.add(GROUPS, { objectClass: ['organizationalUnit'], ou: 'groups' });
  });
  for (const p of Object.values(people)) {
    const extra: Record<string, string | string[]> = {
      cn: p.cn,
      sn: p.cn.split(' ')[1]!,
      mail: p.mail,
      displayName: p.cn,
    };
    if (p.uid === 'dave') extra.employeeType = 'disabled';
    await addUser(p.uid, p.password, extra);
  }
  await admin(async (c) => {
    // ppolicy's lock: "000001010000Z" means locked until an administrator unlocks.
    await c.modify(
      dnOf('carol'),
      new Change({
        operation: 'add',
        modification: new Attribute({ type: 'pwdAccountLockedTime', values: ['000001010000Z'] }),
      }),
    );
    await c.add(`cn=admins,${GROUPS}`, { objectClass: ['groupOfNames'], cn: 'admins', member: [dnOf('alice')] });
    await c.add(`cn=devs,${GROUPS}`, {
      objectClass: ['groupOfNames'],
      cn: 'devs',
      member: [dnOf('alice'), dnOf('bob')],
    });
    await c.add(`cn=ops,${GROUPS}`, { objectClass: ['groupOfUniqueNames'], cn: 'ops', uniqueMember: [dnOf('bob')] });
  });

  return {
    url,
    port,
    ldapsUrl: `ldaps://127.0.0.1:${securePort}`,
    caFile: tls.cert,
    admin,
    addUser,
    deleteUser: (uid) => admin((c) => c.del(dnOf(uid))),
    addToGroup: (group, uid) =>
      admin((c) =>
        c.modify(
          `cn=${group},${GROUPS}`,
          new Change({ operation: 'add', modification: new Attribute({ type: 'member', values: [dnOf(uid)] }) }),
        ),
      ),
    stop,
  };
}
