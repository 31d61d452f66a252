import { cannotDeleteMessage, hasReferences, type References, type repositoryInputSchema, ErrorCodes } from '@gantry/contracts';
import type { z } from 'zod';
import type { Clock } from '../../platform/clock.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { LOCAL_PATH_NOT_ALLOWED, REMOTE_HELPER_REFUSED, type LocalPathCheck } from '../../platform/local-paths.js';
import type { Actor, ProjectResourceService } from '../../platform/resource-routes.js';
import type { EventsService } from '../events/events.service.js';
import type { KeysService } from '../keys/keys.service.js';
import type { ReferencesRepository } from '../references/references.repository.js';
import type { RepositoriesRepository, RepositoryRow } from './repositories.repository.js';

type Input = z.output<typeof repositoryInputSchema>;

export class RepositoriesService implements ProjectResourceService<RepositoryRow, Input, Input> {
  constructor(
    private readonly repo: RepositoriesRepository,
    private readonly keys: KeysService,
    private readonly refsRepo: ReferencesRepository,
    private readonly events: EventsService,
    private readonly clock: Clock,
    private readonly localPaths: LocalPathCheck,
  ) {}

  list(projectId: number): Promise<RepositoryRow[]> {
    return this.repo.list(projectId);
  }

  async get(projectId: number, id: number): Promise<RepositoryRow> {
    const row = await this.repo.find(projectId, id);
    if (!row) throw new NotFoundError('Repository not found', { code: ErrorCodes.repositoryNotFound });
    return row;
  }

  /** For other modules: a 400 about `field` (the caller's request field) unless the repository belongs to the project. */
  async assertInProject(projectId: number, id: number, field: string): Promise<void> {
    if (!(await this.repo.find(projectId, id))) throw new ValidationError('Repository not found in this project', { code: ErrorCodes.notInProject, label_key: 'repository', field });
  }

  async create(actor: Actor, projectId: number, input: Input): Promise<RepositoryRow> {
    this.checkLocalPath(input.git_url);
    await this.keys.typeInProject(projectId, input.ssh_key_id, 'Access key', 'ssh_key_id');
    const row = await this.repo.insert(projectId, input, this.clock.now().toISOString());
    await this.log(actor, projectId, row.id, `Repository ${row.name} created`);
    return row;
  }

  async update(actor: Actor, projectId: number, id: number, input: Input): Promise<void> {
    await this.get(projectId, id);
    this.checkLocalPath(input.git_url);
    await this.keys.typeInProject(projectId, input.ssh_key_id, 'Access key', 'ssh_key_id');
    await this.repo.update(projectId, id, input);
    await this.log(actor, projectId, id, `Repository ${input.name} updated`);
  }

  async delete(actor: Actor, projectId: number, id: number): Promise<void> {
    const row = await this.get(projectId, id);
    const refs = await this.refs(projectId, id);
    if (hasReferences(refs)) throw new ConflictError(cannotDeleteMessage('repository'), { code: ErrorCodes.repositoryInUse, references: refs });
    await this.repo.delete(projectId, id);
    await this.log(actor, projectId, id, `Repository ${row.name} deleted`);
  }

  async refs(projectId: number, id: number): Promise<References> {
    await this.get(projectId, id);
    return this.refsRepo.forRepository(projectId, id);
  }

  /** Paths on this machine's disk only below GANTRY_ALLOWED_LOCAL_PATHS (another project's workspace is one). */
  private checkLocalPath(gitUrl: string): void {
    const problem = this.localPaths.repositoryProblem(gitUrl);
    if (problem) {
      const code = problem === REMOTE_HELPER_REFUSED ? ErrorCodes.remoteHelperNotAllowed : LOCAL_PATH_NOT_ALLOWED;
      throw new ValidationError(problem, { code, field: 'git_url' });
    }
  }

  private log(actor: Actor, projectId: number, id: number, description: string): Promise<void> {
    return this.events.record({ projectId, userId: actor.id, objectType: 'repository', objectId: id, description });
  }
}
