import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { summarizeState } from '@gantry/contracts';
import { copyTreeNoLinks, safeLstat, safeReadFile, UnsafePathError, type CopyOptions } from './safe-fs.js';

const STATE_FILES = ['terraform.tfstate', 'terraform.tfstate.backup'];
const STATE_ENTRIES = [...STATE_FILES, 'terraform.tfstate.d'];

/** GANTRY_MAX_STATE_BYTES' default: no larger state file is read from a workspace. */
export const STATE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Why `text` is not a Terraform/OpenTofu state (a JSON object with a numeric `version` and
 * `serial`, a string `lineage`...), or null when it is one.
 */
export function stateProblem(text: string): string | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'it is not JSON';
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'it is not a JSON object';
  const s = v as Record<string, unknown>;
  if (typeof s.version !== 'number') return 'it has no numeric "version"';
  if (!summarizeState(s)) return 'it has no numeric "serial" and string "lineage"';
  if (s.terraform_version !== undefined && typeof s.terraform_version !== 'string')
    return '"terraform_version" is not a string';
  if (s.resources !== undefined && !Array.isArray(s.resources)) return '"resources" is not a list';
  if (s.outputs !== undefined && (typeof s.outputs !== 'object' || s.outputs === null || Array.isArray(s.outputs)))
    return '"outputs" is not an object';
  return null;
}

/**
 * How the store seals the state it keeps (the server's master key; see wiring/terraform.ts). `open`
 * throws when `sealed` was not sealed with this key or was altered since.
 */
export interface StateSealer {
  seal(plain: Buffer): Buffer;
  open(sealed: Buffer): Buffer;
}

export interface TerraformStateStoreOptions {
  /** Without one, kept files are plain (0600 in 0700 folders): the remote runner has no key. */
  sealer?: StateSealer | null;
}

/** What a sealed kept file starts with; a file without it was kept plain (by an older version). */
export const SEALED_MAGIC = Buffer.from('GANTRY-SEALED-1\n');

const isSealed = (data: Buffer): boolean =>
  data.length >= SEALED_MAGIC.length && data.subarray(0, SEALED_MAGIC.length).equals(SEALED_MAGIC);

/** A state file read from a workspace: its text, or why it was refused; both null when there is none. */
export interface WorkspaceState {
  state: string | null;
  problem: string | null;
}

/**
 * Local-backend state outlives the run's workspace: it is copied into the working directory
 * before a run and back into `<data>/terraform/template_<id>` after it, so the next run sees
 * what the last one applied. Only regular files that parse as a state travel, either way: no
 * link, pipe or other file is followed, kept or written through (see safe-fs). With a sealer, the
 * kept copies are sealed (SEALED_MAGIC, then the sealed bytes) and opened on the way back; a
 * plain copy an older version kept is still restored, and sealed at the next save. A kept file
 * that does not open (another key, altered) is not restored, said so in the log, and never
 * replaced by anything but a good state. Files are 0600 in 0700 folders of the data folder.
 */
export class TerraformStateStore {
  /** Workspace -> staging, on save: state files only, sealed when there is a sealer. */
  private readonly copy: CopyOptions;
  /** Kept folder -> staging, on save: a kept file stays as it is, a plain one is sealed. */
  private readonly keep: CopyOptions;
  /** Kept folder -> workspace, on restore: opened, and only a state travels. */
  private readonly back: CopyOptions;
  private readonly sealer: StateSealer | null;
  /** No kept file larger is read: a sealed state takes more room than the plain one. */
  private readonly keptMaxBytes: number;

  constructor(
    private readonly root: string,
    private readonly maxBytes = STATE_MAX_BYTES,
    options: TerraformStateStoreOptions = {},
  ) {
    this.sealer = options.sealer ?? null;
    this.keptMaxBytes = this.sealer ? 2 * maxBytes + 4096 : maxBytes;
    const common = {
      fileMode: 0o600,
      dirMode: 0o700,
      // terraform.tfstate.d/<workspace>/terraform.tfstate: no deeper folder holds a state.
      maxDepth: 1,
    };
    const seal = (rel: string, data: Buffer): Buffer => (this.sealer ? this.sealed(rel, data) : data);
    this.copy = {
      ...common,
      maxBytes,
      check: (rel, data) => {
        if (!STATE_FILES.includes(path.basename(rel))) return 'not a state file';
        const problem = stateProblem(data.toString('utf8'));
        return problem && `not a Terraform state (${problem})`;
      },
      transform: seal,
    };
    this.keep = {
      ...common,
      maxBytes: this.keptMaxBytes,
      check: (rel) => (STATE_FILES.includes(path.basename(rel)) ? null : 'not a state file'),
      // A sealed file is kept unopened: one this key cannot open is left for the right key.
      transform: (rel, data) => (isSealed(data) ? data : seal(rel, this.opened(rel, data))),
    };
    this.back = { ...common, maxBytes: this.keptMaxBytes, transform: (rel, data) => this.opened(rel, data) };
  }

  /** `plain` (a state file) as the store keeps it: SEALED_MAGIC, then the sealed bytes. */
  private sealed(rel: string, plain: Buffer): Buffer {
    try {
      return Buffer.concat([SEALED_MAGIC, this.sealer!.seal(plain)]);
    } catch {
      throw new UnsafePathError(rel, 'could not be sealed');
    }
  }

  /**
   * The plain state of the kept file `rel`, opened when sealed; throws UnsafePathError when it
   * does not open, is too big once opened, or is not a state.
   */
  private opened(rel: string, data: Buffer): Buffer {
    if (!STATE_FILES.includes(path.basename(rel))) throw new UnsafePathError(rel, 'not a state file');
    let plain = data;
    if (isSealed(data)) {
      if (!this.sealer) throw new UnsafePathError(rel, 'is sealed, and this store has no key to open it');
      try {
        plain = this.sealer.open(data.subarray(SEALED_MAGIC.length));
      } catch {
        throw new UnsafePathError(rel, 'could not be opened (sealed with another key, or altered)');
      }
    }
    if (plain.length > this.maxBytes) throw new UnsafePathError(rel, `is larger than ${this.maxBytes} bytes`);
    const problem = stateProblem(plain.toString('utf8'));
    if (problem) throw new UnsafePathError(rel, `not a Terraform state (${problem})`);
    return plain;
  }

  /** The template's folder (a real path), made when `create`; null when it does not exist. */
  private dir(templateId: number, create: boolean): string | null {
    if (create) fs.mkdirSync(this.root, { recursive: true, mode: 0o700 });
    else if (!fs.existsSync(this.root)) return null;
    const dir = path.join(fs.realpathSync.native(this.root), `template_${templateId}`);
    if (create) {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      fs.chmodSync(dir, 0o700);
    }
    return fs.existsSync(dir) ? dir : null;
  }

  /**
   * Copies the template's saved state into `workDir` (a real folder path of the workspace), opened
   * and plain, replacing whatever the checkout has there without following it; `owner` (a root
   * server's task user) gets what is written. Answers what was left out, for the log.
   */
  restore(templateId: number, workDir: string, owner?: { uid: number; gid: number } | null): string[] {
    const from = this.dir(templateId, false);
    if (!from) return [];
    const notes: string[] = [];
    for (const e of STATE_ENTRIES) {
      for (const s of copyTreeNoLinks(from, workDir, e, { ...this.back, owner }).skipped)
        notes.push(`Local state: saved ${s.rel} not restored: ${s.reason}`);
    }
    return notes;
  }

  /** The state file `rel` of `workDir` (a real folder path of the workspace), read without following a link. */
  readState(workDir: string, rel: string): WorkspaceState {
    try {
      const data = safeReadFile(workDir, rel, this.maxBytes);
      if (data === null) return { state: null, problem: null };
      const state = data.toString('utf8');
      const problem = stateProblem(state);
      return problem
        ? { state: null, problem: `${rel} is not a Terraform state: ${problem}` }
        : { state, problem: null };
    } catch (e) {
      if (e instanceof UnsafePathError) return { state: null, problem: e.message };
      throw e;
    }
  }

  /**
   * What the default workspace's state holds: resource addresses and output names only. Values
   * are never returned: state files carry secrets.
   */
  summary(
    templateId: number,
  ): { serial: number; terraform_version: string; resources: string[]; outputs: string[] } | null {
    const dir = this.dir(templateId, false);
    let text: string;
    try {
      const data = dir ? safeReadFile(dir, 'terraform.tfstate', this.keptMaxBytes) : null;
      if (data === null) return null;
      text = this.opened('terraform.tfstate', data).toString('utf8');
    } catch (e) {
      if (e instanceof UnsafePathError) return null;
      throw e;
    }
    try {
      const state = JSON.parse(text) as {
        serial?: number;
        terraform_version?: string;
        resources?: Array<{ mode?: string; type?: string; name?: string }>;
        outputs?: Record<string, unknown>;
      };
      return {
        serial: state.serial ?? 0,
        terraform_version: state.terraform_version ?? '',
        resources: (state.resources ?? []).map((r) => `${r.mode === 'data' ? 'data.' : ''}${r.type}.${r.name}`),
        outputs: Object.keys(state.outputs ?? {}),
      };
    } catch {
      return null;
    }
  }

  /**
   * A sha256 over the template's kept state files (their plain content, opened when sealed, so a
   * re-seal of the same state does not move it), '' when none is kept: taken when a run restores
   * the state and again before it applies, it says whether another run saved meanwhile.
   */
  fingerprint(templateId: number): string {
    const dir = this.dir(templateId, false);
    if (!dir) return '';
    const rels: string[] = [];
    for (const f of STATE_FILES) rels.push(f);
    try {
      for (const w of fs.readdirSync(path.join(dir, 'terraform.tfstate.d')).sort())
        for (const f of STATE_FILES) rels.push(path.join('terraform.tfstate.d', w, f));
    } catch {
      // No workspace folder kept.
    }
    const hash = crypto.createHash('sha256');
    let any = false;
    for (const rel of rels) {
      let data: Buffer | null;
      try {
        data = safeReadFile(dir, rel, this.keptMaxBytes);
      } catch (e) {
        if (e instanceof UnsafePathError) continue;
        throw e;
      }
      if (data === null) continue;
      let plain = data;
      try {
        plain = this.opened(rel, data);
      } catch {
        // Kept but not opened here: its bytes still say whether it moved.
      }
      any = true;
      hash.update(`${rel}\0${plain.length}\0`).update(plain);
    }
    return any ? hash.digest('hex') : '';
  }

  /**
   * Copies the state `workDir` (a real folder path of the workspace) holds into the template's
   * folder. An entry the workspace lacks keeps its saved copy; so does a file that is a link, not a
   * state, or too big: a bad file never replaces a good one. With a sealer, what is kept is sealed
   * (a plain file an older version kept too). Answers what was left out, for the log.
   */
  save(templateId: number, workDir: string): string[] {
    const to = this.dir(templateId, true)!;
    const staging = fs.mkdtempSync(path.join(to, '.staging-'));
    const notes: string[] = [];
    try {
      for (const e of STATE_ENTRIES) {
        for (const s of copyTreeNoLinks(workDir, staging, e, this.copy).skipped) {
          notes.push(`Local state: ${s.rel} not saved: ${s.reason}`);
          copyTreeNoLinks(to, staging, s.rel, this.keep);
        }
        // An entry the workspace lacks stays as kept; a plain copy of an older version is sealed now.
        if (this.sealer && !safeLstat(staging, e)) copyTreeNoLinks(to, staging, e, this.keep);
        if (!safeLstat(staging, e)) continue;
        fs.rmSync(path.join(to, e), { recursive: true, force: true });
        fs.renameSync(path.join(staging, e), path.join(to, e));
      }
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
    return notes;
  }
}
