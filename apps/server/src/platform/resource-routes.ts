import type { References } from '@gantry/contracts';
import { Permission, idParamSchema, referencesSchema } from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z, type ZodType } from 'zod';
import { requireUser } from './auth.js';
import { keepStoredFields } from './partial-update.js';
import { projectGuard, type ProjectMembership } from './permissions.js';
import type { AuditRecorder } from '../modules/audit/audit.port.js';
import { secretsIn } from '../modules/audit/audit-fields.js';
import { noContent } from './openapi-document.js';
import { resourceExamples, withExample } from './openapi-examples.js';

/** Who changes something, for permission decisions and the activity log. */
export interface Actor {
  id: number;
  admin: boolean;
  /** The caller's permission bits in the project (projectGuard's); absent outside a project route. */
  permissions?: number;
}

/** What every project resource (keys, repositories, inventories, variable groups) offers. */
export interface ProjectResourceService<Row, CreateIn, UpdateIn> {
  list(projectId: number, query: Record<string, string | undefined>): Promise<Row[]>;
  get(projectId: number, id: number): Promise<Row>;
  create(actor: Actor, projectId: number, input: CreateIn): Promise<Row>;
  update(actor: Actor, projectId: number, id: number, input: UpdateIn): Promise<void>;
  delete(actor: Actor, projectId: number, id: number): Promise<void>;
  refs(projectId: number, id: number): Promise<References>;
}

export interface ResourceRoutesOptions<Row, Out, CreateIn, UpdateIn> {
  /** Path segment under /project/:projectId, e.g. `keys`. */
  path: string;
  tag: string;
  members: ProjectMembership;
  service: ProjectResourceService<Row, CreateIn, UpdateIn>;
  present: (row: Row) => Out;
  itemSchema: ZodType<Out>;
  createSchema: ZodType<CreateIn>;
  updateSchema: ZodType<UpdateIn>;
  querySchema?: ZodType<Record<string, string | undefined>>;
  /** For partial updates: fields kept from the stored object only while the named field is unchanged. */
  boundFields?: Record<string, string>;
  /** The permission bit for create/update/delete; manageProjectResources unless the spec says otherwise. */
  changePermission?: number;
  /** Where create/update/delete are recorded, as `objectType` with the presented object before and after. */
  audit?: { recorder: AuditRecorder; objectType: string };
}

/**
 * The six routes of a project resource: list and read for any member, create/update/delete with
 * manageProjectResources (or `changePermission`), and `refs` for the references dialog. Every id
 * lookup goes through the service with the project id, so another project's rows are never
 * reachable.
 */
export function resourceRoutes<Row, Out, CreateIn, UpdateIn>(
  o: ResourceRoutesOptions<Row, Out, CreateIn, UpdateIn>,
): FastifyPluginAsyncZod {
  return async (app) => {
    const read = projectGuard(o.members, 0);
    const manage = projectGuard(o.members, o.changePermission ?? Permission.manageProjectResources);
    const listParams = z.object({ projectId: idParamSchema });
    const itemParams = z.object({ projectId: idParamSchema, id: idParamSchema });
    const base = `/project/:projectId/${o.path}`;
    const actor = (u: { id: number; admin: number }, request?: FastifyRequest): Actor => ({
      id: u.id,
      admin: u.admin === 1,
      ...(request?.projectAccess ? { permissions: request.projectAccess.permissions } : {}),
    });
    const tags = [o.tag];
    // Erased to ZodType: the generic Out defeats the type provider's reply inference, while the
    // schema itself still shapes and checks every answer at run time.
    const shown = resourceExamples[o.path];
    const item = (shown?.item ? withExample(o.itemSchema, shown.item) : o.itemSchema) as ZodType;
    const createBody = shown?.create ? withExample(o.createSchema, shown.create) : o.createSchema;
    // The presented object (no secrets) before and after; secrets the body set show as "changed".
    const record = async (
      action: 'create' | 'update' | 'delete',
      projectId: number,
      before: Out | null,
      after: Out | null,
      body: unknown,
      id?: number,
    ) => {
      if (!o.audit) return;
      const objectId = id ?? (after as { id?: number } | null)?.id ?? null;
      await o.audit.recorder.record({
        action,
        objectType: o.audit.objectType,
        objectId,
        projectId,
        before: before as Record<string, unknown> | null,
        after: after as Record<string, unknown> | null,
        secretsChanged: action === 'delete' ? [] : secretsIn(body),
      });
    };
    const storedItem = async (params: unknown) => {
      const p = itemParams.safeParse(params);
      return p.success ? o.present(await o.service.get(p.data.projectId, p.data.id)) : null;
    };

    app.get(
      base,
      {
        preValidation: read,
        schema: {
          tags,
          params: listParams,
          querystring: o.querySchema ?? z.object({}).passthrough(),
          response: { 200: z.array(item) },
        },
      },
      async (request) =>
        (await o.service.list(request.params.projectId, request.query as Record<string, string>)).map(o.present),
    );

    app.post(
      base,
      { preValidation: manage, schema: { tags, params: listParams, body: createBody, response: { 201: item } } },
      async (request, reply) => {
        const row = await o.service.create(
          actor(requireUser(request)),
          request.params.projectId,
          request.body as CreateIn,
        );
        const out = o.present(row);
        await record('create', request.params.projectId, null, out, request.body);
        return reply.status(201).send(out);
      },
    );

    app.get(
      `${base}/:id`,
      { preValidation: read, schema: { tags, params: itemParams, response: { 200: item } } },
      async (request) => o.present(await o.service.get(request.params.projectId, request.params.id)),
    );

    app.put(
      `${base}/:id`,
      {
        // A field left out keeps its stored value, as Semaphore's handlers do.
        preValidation: [
          manage,
          keepStoredFields(o.updateSchema, (request) => storedItem(request.params), o.boundFields),
        ],
        schema: { response: { 204: noContent }, tags, params: itemParams, body: o.updateSchema },
      },
      async (request, reply) => {
        const before = o.audit ? o.present(await o.service.get(request.params.projectId, request.params.id)) : null;
        await o.service.update(
          actor(requireUser(request), request),
          request.params.projectId,
          request.params.id,
          request.body as UpdateIn,
        );
        const after = o.audit ? o.present(await o.service.get(request.params.projectId, request.params.id)) : null;
        await record('update', request.params.projectId, before, after, request.body, request.params.id);
        return reply.status(204).send();
      },
    );

    app.delete(
      `${base}/:id`,
      { preValidation: manage, schema: { response: { 204: noContent }, tags, params: itemParams } },
      async (request, reply) => {
        const before = o.audit ? o.present(await o.service.get(request.params.projectId, request.params.id)) : null;
        await o.service.delete(actor(requireUser(request), request), request.params.projectId, request.params.id);
        await record('delete', request.params.projectId, before, null, undefined, request.params.id);
        return reply.status(204).send();
      },
    );

    app.get(
      `${base}/:id/refs`,
      { preValidation: read, schema: { tags, params: itemParams, response: { 200: referencesSchema } } },
      async (request) => o.service.refs(request.params.projectId, request.params.id),
    );
  };
}
