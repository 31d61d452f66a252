import { workflowInputSchema, type ProjectBackup, type WorkflowNode } from '@gantry/contracts';
import type { Actor } from '../../platform/resource-routes.js';
import type { Pacer } from './backup.limits.js';
import { Restored, type RestoreNotes } from './backup.restore-refs.js';
import type { RestoreServices } from './backup.transaction.js';

type BackupWorkflow = ProjectBackup['workflows'][number];

/** The restored objects a workflow's nodes name. */
export interface WorkflowRefs {
  tpls: Restored;
  invs: Restored;
  envs: Restored;
}

/**
 * Recreates the backup's workflows, each after the workflows its nodes run (so their new ids
 * are known). A workflow whose template or nested workflow was not restored is not restored
 * either (noted); an inventory or variable group that was not is left out of its node (noted);
 * one that Gantry's checks refuse, or that runs itself through others, is noted as not restored.
 */
export async function restoreWorkflows(
  s: RestoreServices,
  actor: Actor,
  projectId: number,
  doc: ProjectBackup,
  k: WorkflowRefs,
  notes: RestoreNotes,
  pacer: Pacer,
): Promise<Restored> {
  const wfs = new Restored(doc.workflows);
  const waiting = new Map(doc.workflows.map((w) => [w.id, w]));
  const runs = (w: BackupWorkflow) =>
    w.nodes.flatMap((n) => (n.type === 'workflow' && n.workflow_id ? [n.workflow_id] : []));
  for (let progress = true; progress && waiting.size > 0;) {
    progress = false;
    for (const w of [...waiting.values()]) {
      // Those it runs first; a chain that comes back to itself never gets ready (noted below).
      if (runs(w).some((id) => id !== w.id && waiting.has(id))) continue;
      waiting.delete(w.id);
      progress = true;
      await pacer.tick();
      const what = `Workflow "${w.name}"`;
      const nodes = mapNodes(w, what, { ...k, wfs }, notes);
      if (!nodes) continue;
      await notes.attempt(what, async () => {
        const input = workflowInputSchema.parse({
          name: w.name,
          description: w.description,
          nodes,
          edges: w.edges,
          joins: w.joins,
        });
        wfs.set(w.id, (await s.workflows.create(actor, projectId, input)).id);
      });
    }
  }
  // What is left runs itself through others: never ready.
  for (const w of waiting.values())
    notes.required(`Workflow "${w.name}"`, 'workflow it runs that does not run it back', wfs, null);
  return wfs;
}

/**
 * What a schedule or an integration of the backup starts, with new ids: its workflow when it names
 * one, else its template; null (noted: not restored) when that was not restored.
 */
export function restoredTarget(
  what: string,
  o: { template_id?: number | null; workflow_id?: number | null },
  tpls: Restored,
  wfs: Restored,
  notes: RestoreNotes,
): { template_id: number; workflow_id: null } | { template_id: null; workflow_id: number } | null {
  if (o.workflow_id) {
    const workflowId = notes.required(what, 'workflow', wfs, o.workflow_id);
    return workflowId === null ? null : { template_id: null, workflow_id: workflowId };
  }
  const templateId = notes.required(what, 'template', tpls, o.template_id ?? null);
  return templateId === null ? null : { template_id: templateId, workflow_id: null };
}

/** The nodes with new ids, or null (noted) when one cannot do without a reference that names nothing restored. */
function mapNodes(
  w: BackupWorkflow,
  what: string,
  k: WorkflowRefs & { wfs: Restored },
  notes: RestoreNotes,
): WorkflowNode[] | null {
  const out: WorkflowNode[] = [];
  for (const n of w.nodes) {
    const at = `node "${n.id}": `;
    let templateId = n.template_id ?? null;
    if (n.type === 'template') {
      templateId = notes.required(what, `${at}template`, k.tpls, n.template_id ?? null);
      if (templateId === null) return null;
    }
    let workflowId = n.workflow_id ?? null;
    if (n.type === 'workflow') {
      workflowId = notes.required(what, `${at}workflow`, k.wfs, n.workflow_id ?? null);
      if (workflowId === null) return null;
    }
    const params = n.params
      ? {
          ...n.params,
          inventory_id: notes.optional(what, `${at}inventory`, k.invs, n.params.inventory_id ?? null),
          environment_id: notes.optional(what, `${at}variable group`, k.envs, n.params.environment_id ?? null),
        }
      : n.params;
    out.push({
      ...n,
      template_id: templateId,
      workflow_id: workflowId,
      params,
      approvers: n.approvers ? { ...n.approvers, users: [] } : n.approvers,
    });
  }
  return out;
}
