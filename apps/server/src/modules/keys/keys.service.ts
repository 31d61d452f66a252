import { can, cannotDeleteMessage, hasReferences, Permission, type keyCreateSchema, type KeyType, type References, ErrorCodes, labelKey, type FieldLabel } from '@gantry/contracts';
import type { z } from 'zod';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../platform/errors.js';
import type { Actor, ProjectResourceService } from '../../platform/resource-routes.js';
import { privateKeyProblem } from '../../platform/ssh-key.js';
import type { EventsService } from '../events/events.service.js';
import type { ReferencesRepository } from '../references/references.repository.js';
import type { KeyView } from './keys.presenter.js';
import type { KeyRow, KeysRepository } from './keys.repository.js';

export type KeyInput = z.output<typeof keyCreateSchema>;

/** Key material as it is sealed at rest and handed to a run. */
// The engine declares the decrypted key it runs with; this service is its source.
import type { KeySecret } from '../../engine/ports.js';
export type { KeySecret };

export class KeysService implements ProjectResourceService<KeyView, KeyInput, KeyInput> {
  constructor(
    private readonly repo: KeysRepository,
    private readonly refsRepo: ReferencesRepository,
    private readonly box: SecretBox,
    private readonly events: EventsService,
    private readonly clock: Clock,
  ) {}

  /** The project's keys, each with its login (not a secret) for the API to show. */
  async list(projectId: number): Promise<KeyView[]> {
    return (await this.repo.list(projectId)).map((row) => this.withLogin(row));
  }

  async get(projectId: number, id: number): Promise<KeyView> {
    return this.withLogin(await this.row(projectId, id));
  }

  /**
   * For other modules: the key's type when it belongs to the project, else a 400 about `field`
   * (the caller's request field that holds the id, e.g. `ssh_key_id`).
   */
  async typeInProject(projectId: number, id: number, what: FieldLabel, field: string): Promise<KeyType> {
    const row = await this.repo.find(projectId, id);
    if (!row) throw new ValidationError(`${what} not found in this project`, { code: ErrorCodes.notInProject, label_key: labelKey(what), field });
    return row.type as KeyType;
  }

  async create(actor: Actor, projectId: number, input: KeyInput): Promise<KeyView> {
    const row = await this.repo.insert({
      project_id: projectId,
      name: input.name,
      type: input.type,
      secret: this.sealInput(input),
      created: this.clock.now().toISOString(),
    });
    await this.log(actor, projectId, row.id, `Key ${row.name} created`);
    return this.withLogin(row);
  }

  /**
   * A key of the given type without its secret (restored from a backup); it shows as empty until
   * its material is given. An ssh or login/password key keeps its login (not a secret).
   */
  async createEmpty(actor: Actor, projectId: number, input: { name: string; type: KeyType; login?: string | null }): Promise<KeyRow> {
    const login = input.login ?? '';
    const secret =
      login && input.type === 'ssh'
        ? this.box.seal(JSON.stringify({ login, passphrase: '', private_key: '' }))
        : login && input.type === 'login_password'
          ? this.box.seal(JSON.stringify({ login, password: '' }))
          : null;
    const row = await this.repo.insert({ project_id: projectId, name: input.name, type: input.type, secret, created: this.clock.now().toISOString() });
    await this.log(actor, projectId, row.id, `Key ${row.name} created`);
    return row;
  }

  /** The key's name when it is one a task cannot use yet: its type needs a secret it does not have (a restored key). */
  async emptyKeyName(projectId: number, id: number): Promise<string | null> {
    const row = await this.repo.find(projectId, id);
    return row && this.withLogin(row).empty ? row.name : null;
  }

  /** Without override_secret the stored material stays; changing the type needs new material. */
  async update(actor: Actor, projectId: number, id: number, input: KeyInput): Promise<void> {
    const row = await this.row(projectId, id);
    const writeSecret = input.override_secret || input.type !== row.type;
    if (writeSecret) await this.checkAliasKeyChange(actor, projectId, id);
    if (writeSecret && input.type !== row.type && !input.override_secret) {
      // The body schema only checks material with override_secret; check it for a type change too.
      this.requireMaterial(input);
    }
    await this.repo.update(projectId, id, {
      name: input.name,
      type: input.type,
      ...(writeSecret ? { secret: this.sealInput(input) } : {}),
    });
    await this.log(actor, projectId, id, `Key ${input.name} updated`);
  }

  async delete(actor: Actor, projectId: number, id: number): Promise<void> {
    const row = await this.row(projectId, id);
    const refs = await this.refs(projectId, id);
    if (hasReferences(refs)) throw new ConflictError(cannotDeleteMessage('key'), { code: ErrorCodes.keyInUse, references: refs });
    await this.repo.delete(projectId, id);
    await this.log(actor, projectId, id, `Key ${row.name} deleted`);
  }

  async refs(projectId: number, id: number): Promise<References> {
    await this.row(projectId, id);
    return this.refsRepo.forKey(projectId, id);
  }

  /** The decrypted material, for the task engine only; never for an API answer. Null when the key has none (or only a login). */
  async secretOf(projectId: number, id: number): Promise<KeySecret | null> {
    const row = await this.row(projectId, id);
    if (!row.secret) return null;
    const material = { type: row.type, ...JSON.parse(this.box.open(row.secret)) } as KeySecret;
    return usable(material) ? material : null;
  }

  /**
   * A Terraform backend alias opens the workspace's raw state (its secrets) with this key: aliases
   * are the owners' to manage, so only they may set the password that opens one.
   */
  private async checkAliasKeyChange(actor: Actor, projectId: number, id: number): Promise<void> {
    if (actor.admin || actor.permissions === undefined || can(actor.permissions, Permission.updateProject)) return;
    if (await this.repo.usedByTerraformAlias(projectId, id))
      throw new ForbiddenError("Only the project's owners may change the secret of a key a Terraform backend alias uses", { code: ErrorCodes.keyUsedByAlias });
  }

  private async row(projectId: number, id: number): Promise<KeyRow> {
    const row = await this.repo.find(projectId, id);
    if (!row) throw new NotFoundError('Key not found', { code: ErrorCodes.keyNotFound });
    return row;
  }

  /** Opens the sealed material only to read the login and whether the secret is there; the secret parts never leave here. */
  private withLogin(row: KeyRow): KeyView {
    if (row.type === 'none') return { ...row, empty: false };
    if (!row.secret) return { ...row, empty: true };
    const material = { type: row.type, ...JSON.parse(this.box.open(row.secret)) } as KeySecret & { login?: unknown };
    return { ...row, login: typeof material.login === 'string' ? material.login : '', empty: !usable(material) };
  }


  private requireMaterial(input: KeyInput): void {
    if (input.type === 'ssh' && !input.ssh?.private_key.trim()) throw new ValidationError('Private key is required', { code: ErrorCodes.fieldRequired, label_key: 'private_key', field: 'ssh.private_key' });
    if (input.type === 'login_password' && !input.login_password?.password) throw new ValidationError('Password is required', { code: ErrorCodes.fieldRequired, label_key: 'password', field: 'login_password.password' });
  }

  private sealInput(input: KeyInput): string | null {
    switch (input.type) {
      case 'none':
        return null;
      case 'ssh': {
        const ssh = input.ssh!;
        const problem = privateKeyProblem(ssh.private_key, ssh.passphrase);
        if (problem) {
          const passphrase = problem.startsWith('Passphrase');
          throw new ValidationError(problem, {
            code: passphrase ? ErrorCodes.passphraseIncorrect : ErrorCodes.privateKeyInvalid,
            field: passphrase ? 'ssh.passphrase' : 'ssh.private_key',
          });
        }
        return this.box.seal(JSON.stringify({ login: ssh.login, passphrase: ssh.passphrase, private_key: ssh.private_key.trim() + '\n' }));
      }
      case 'login_password': {
        const lp = input.login_password!;
        return this.box.seal(JSON.stringify({ login: lp.login, password: lp.password }));
      }
    }
  }

  private log(actor: Actor, projectId: number, id: number, description: string): Promise<void> {
    return this.events.record({ projectId, userId: actor.id, objectType: 'key', objectId: id, description });
  }
}

/** Whether the material holds its secret (a restored key has at most its login). */
function usable(material: KeySecret): boolean {
  if (material.type === 'ssh') return Boolean(material.private_key);
  if (material.type === 'login_password') return Boolean(material.password);
  return true;
}
