import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SecretBox } from '../platform/crypto.js';
import { SEALED_MAGIC, TerraformStateStore, type StateSealer } from './terraform-state.js';

/** The adapter wiring/terraform.ts builds from the server's SecretBox. */
const sealerOf = (box: SecretBox): StateSealer => ({
  seal: (plain) => Buffer.from(box.seal(plain.toString('base64')), 'utf8'),
  open: (sealed) => Buffer.from(box.open(sealed.toString('utf8')), 'base64'),
});

const OUTPUT = 'hunter2-output-value';
const stateText = (serial: number, extra = ''): string =>
  JSON.stringify(
    {
      version: 4,
      terraform_version: '1.9.0',
      serial,
      lineage: 'b6a2f7c4-lineage',
      outputs: { password: { value: `${OUTPUT}${extra}`, type: 'string', sensitive: true } },
      resources: [{ mode: 'managed', type: 'null_resource', name: 'n', instances: [] }],
    },
    null,
    2,
  ) + '\n';

let base: string;
let root: string;
let key: Buffer;
let store: TerraformStateStore;
/** A fresh real workspace folder. */
let n = 0;
const workspace = (): string => {
  const ws = path.join(base, `ws${++n}`);
  fs.mkdirSync(ws);
  return ws;
};
const kept = (rel: string): string => path.join(root, 'template_1', rel);

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-tf-state-')));
  root = path.join(base, 'terraform');
  key = randomBytes(32);
  store = new TerraformStateStore(root, 1024 * 1024, { sealer: sealerOf(new SecretBox(key)) });
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

describe('TerraformStateStore with a sealer', () => {
  it('keeps every state file sealed and restores the exact bytes', () => {
    const ws = workspace();
    const main = stateText(3);
    const backup = stateText(2, '-old');
    const named = stateText(7, '-\u00e9t\u00e9');
    fs.writeFileSync(path.join(ws, 'terraform.tfstate'), main);
    fs.writeFileSync(path.join(ws, 'terraform.tfstate.backup'), backup);
    fs.mkdirSync(path.join(ws, 'terraform.tfstate.d', 'staging'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'terraform.tfstate.d', 'staging', 'terraform.tfstate'), named);

    expect(store.save(1, ws)).toEqual([]);
    for (const rel of ['terraform.tfstate', 'terraform.tfstate.backup', 'terraform.tfstate.d/staging/terraform.tfstate']) {
      const onDisk = fs.readFileSync(kept(rel));
      expect(onDisk.subarray(0, SEALED_MAGIC.length).equals(SEALED_MAGIC)).toBe(true);
      expect(onDisk.toString('latin1')).not.toContain(OUTPUT);
      expect(onDisk.toString('latin1')).not.toContain('lineage');
      expect(fs.statSync(kept(rel)).mode & 0o777).toBe(0o600);
    }

    const next = workspace();
    expect(store.restore(1, next)).toEqual([]);
    expect(fs.readFileSync(path.join(next, 'terraform.tfstate'), 'utf8')).toBe(main);
    expect(fs.readFileSync(path.join(next, 'terraform.tfstate.backup'), 'utf8')).toBe(backup);
    expect(fs.readFileSync(path.join(next, 'terraform.tfstate.d', 'staging', 'terraform.tfstate'), 'utf8')).toBe(named);
    expect(store.summary(1)).toEqual({
      serial: 3,
      terraform_version: '1.9.0',
      resources: ['null_resource.n'],
      outputs: ['password'],
    });
  });

  it('gives what it restores to the task user', () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws, 'terraform.tfstate'), stateText(1));
    fs.mkdirSync(path.join(ws, 'terraform.tfstate.d', 'w'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'terraform.tfstate.d', 'w', 'terraform.tfstate'), stateText(1));
    store.save(1, ws);
    const next = workspace();
    expect(store.restore(1, next, { uid: 4321, gid: 4322 })).toEqual([]);
    for (const rel of ['terraform.tfstate', 'terraform.tfstate.d', 'terraform.tfstate.d/w/terraform.tfstate']) {
      const st = fs.lstatSync(path.join(next, rel));
      expect([st.uid, st.gid]).toEqual([4321, 4322]);
    }
    expect(fs.readFileSync(path.join(next, 'terraform.tfstate'), 'utf8')).toBe(stateText(1));
  });

  it('restores a plain file an older version kept, and seals it at the next save', () => {
    const main = stateText(5);
    const named = stateText(6);
    fs.mkdirSync(path.dirname(kept('terraform.tfstate.d/w/terraform.tfstate')), { recursive: true, mode: 0o700 });
    fs.writeFileSync(kept('terraform.tfstate'), main, { mode: 0o600 });
    fs.writeFileSync(kept('terraform.tfstate.d/w/terraform.tfstate'), named, { mode: 0o600 });
    expect(store.summary(1)?.serial).toBe(5);

    const ws = workspace();
    expect(store.restore(1, ws)).toEqual([]);
    expect(fs.readFileSync(path.join(ws, 'terraform.tfstate'), 'utf8')).toBe(main);

    // The next run leaves no state at all (an entry the workspace lacks keeps its copy): sealed now.
    expect(store.save(1, workspace())).toEqual([]);
    for (const rel of ['terraform.tfstate', 'terraform.tfstate.d/w/terraform.tfstate']) {
      const onDisk = fs.readFileSync(kept(rel));
      expect(onDisk.subarray(0, SEALED_MAGIC.length).equals(SEALED_MAGIC)).toBe(true);
      expect(onDisk.toString('latin1')).not.toContain(OUTPUT);
    }
    const again = workspace();
    expect(store.restore(1, again)).toEqual([]);
    expect(fs.readFileSync(path.join(again, 'terraform.tfstate'), 'utf8')).toBe(main);
    expect(fs.readFileSync(path.join(again, 'terraform.tfstate.d/w/terraform.tfstate'), 'utf8')).toBe(named);
  });

  it('seals a plain kept file the workspace only has a bad copy of', () => {
    fs.mkdirSync(path.join(root, 'template_1'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(kept('terraform.tfstate'), stateText(5), { mode: 0o600 });
    const ws = workspace();
    fs.writeFileSync(path.join(ws, 'terraform.tfstate'), 'not json');
    expect(store.save(1, ws)).toEqual(['Local state: terraform.tfstate not saved: not a Terraform state (it is not JSON)']);
    expect(fs.readFileSync(kept('terraform.tfstate')).toString('latin1')).not.toContain(OUTPUT);
    const next = workspace();
    store.restore(1, next);
    expect(fs.readFileSync(path.join(next, 'terraform.tfstate'), 'utf8')).toBe(stateText(5));
  });

  it('skips a tampered file or one sealed with another key, with a note, and keeps it until a good state replaces it', () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws, 'terraform.tfstate'), stateText(3));
    fs.writeFileSync(path.join(ws, 'terraform.tfstate.backup'), stateText(2));
    store.save(1, ws);
    // One byte of the ciphertext flipped.
    const sealed = fs.readFileSync(kept('terraform.tfstate'));
    const i = sealed.length - 5;
    sealed[i] = sealed[i] === 0x41 ? 0x42 : 0x41;
    fs.writeFileSync(kept('terraform.tfstate'), sealed);

    const next = workspace();
    expect(store.restore(1, next)).toEqual([
      'Local state: saved terraform.tfstate not restored: could not be opened (sealed with another key, or altered)',
    ]);
    expect(fs.existsSync(path.join(next, 'terraform.tfstate'))).toBe(false);
    expect(fs.readFileSync(path.join(next, 'terraform.tfstate.backup'), 'utf8')).toBe(stateText(2));
    expect(store.summary(1)).toBeNull();

    // Another key opens nothing, and crashes nothing.
    const other = new TerraformStateStore(root, 1024 * 1024, { sealer: sealerOf(new SecretBox(randomBytes(32))) });
    expect(other.restore(1, workspace())).toEqual([
      'Local state: saved terraform.tfstate not restored: could not be opened (sealed with another key, or altered)',
      'Local state: saved terraform.tfstate.backup not restored: could not be opened (sealed with another key, or altered)',
    ]);
    expect(other.summary(1)).toBeNull();

    // A run that leaves no state keeps the unreadable file as it was (the right key may come back).
    store.save(1, workspace());
    expect(fs.readFileSync(kept('terraform.tfstate')).equals(sealed)).toBe(true);
    // A good state replaces it.
    const fresh = workspace();
    fs.writeFileSync(path.join(fresh, 'terraform.tfstate'), stateText(4));
    expect(store.save(1, fresh)).toEqual([]);
    expect(store.summary(1)?.serial).toBe(4);
  });

  it('says so when a sealed file meets a store without a key; plain files still travel there', () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws, 'terraform.tfstate'), stateText(3));
    store.save(1, ws);
    const plainStore = new TerraformStateStore(root, 1024 * 1024);
    expect(plainStore.restore(1, workspace())).toEqual([
      'Local state: saved terraform.tfstate not restored: is sealed, and this store has no key to open it',
    ]);
    expect(plainStore.summary(1)).toBeNull();

    const other = path.join(base, 'plain');
    const unsealed = new TerraformStateStore(other, 1024 * 1024);
    expect(unsealed.save(1, ws)).toEqual([]);
    expect(fs.readFileSync(path.join(other, 'template_1', 'terraform.tfstate'), 'utf8')).toBe(stateText(3));
    const next = workspace();
    expect(unsealed.restore(1, next)).toEqual([]);
    expect(fs.readFileSync(path.join(next, 'terraform.tfstate'), 'utf8')).toBe(stateText(3));
  });

  it('still follows no link, either way', () => {
    const secret = path.join(base, 'secret.tfstate');
    fs.writeFileSync(secret, stateText(9, '-secret'));
    const ws = workspace();
    fs.symlinkSync(secret, path.join(ws, 'terraform.tfstate'));
    expect(store.save(1, ws)).toEqual(['Local state: terraform.tfstate not saved: is a symbolic link']);
    expect(fs.existsSync(kept('terraform.tfstate'))).toBe(false);

    const good = workspace();
    fs.writeFileSync(path.join(good, 'terraform.tfstate'), stateText(3));
    store.save(1, good);
    // A link in the checkout is replaced, not written through.
    const next = workspace();
    fs.symlinkSync(secret, path.join(next, 'terraform.tfstate'));
    expect(store.restore(1, next)).toEqual([]);
    expect(fs.lstatSync(path.join(next, 'terraform.tfstate')).isFile()).toBe(true);
    expect(fs.readFileSync(secret, 'utf8')).toBe(stateText(9, '-secret'));
    // A link planted in the kept folder is not restored.
    fs.rmSync(kept('terraform.tfstate'));
    fs.symlinkSync(secret, kept('terraform.tfstate'));
    expect(store.restore(1, workspace())).toEqual(['Local state: saved terraform.tfstate not restored: is a symbolic link']);
    expect(store.summary(1)).toBeNull();
  });
});
