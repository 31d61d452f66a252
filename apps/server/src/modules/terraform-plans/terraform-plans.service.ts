import {
  ErrorCodes,
  PROJECT_ROLES,
  UNKNOWN_DRIFT,
  planSummarySchema,
  roleAtLeast,
  type Drift,
  type PlanConfirmation,
  type PlanSummary,
} from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import { ForbiddenError, ValidationError } from '../../platform/errors.js';
import type { PlanWithConfirmer, TerraformDriftRow, TerraformPlansRepository } from './terraform-plans.repository.js';

/** The task facts a plan or a drift finding is filed under. */
export interface PlannedTask {
  id: number;
  project_id: number;
  template_id: number;
}

/** Who confirms: admins pass every role check. */
export interface Confirmer {
  id: number;
  admin: boolean;
  role?: string | null;
}

/** What a drift check found, as the engine reports it (executor's DriftResult). */
export interface DriftFinding {
  drifted: boolean;
  summary: PlanSummary | null;
  refreshOnly: boolean;
}

/** The apps a drift check (and a plan summary) is for. */
export const TERRAFORM_APPS: readonly string[] = ['terraform', 'tofu'];

/** The scope key of a drift finding: one row per template and workspace (0: the template's local state). */
export function driftScope(templateId: number, inventoryId: number | null): string {
  return `${templateId}:${inventoryId ?? 0}`;
}

/**
 * Terraform governance around the engine: the plan summary of each task (with the role its policy
 * asks to confirm it, and who confirmed it), and the last drift check's finding per template and
 * workspace. Tasks, inventories, templates and notifications reach it through ports set in services.ts.
 */
export class TerraformPlansService {
  constructor(
    private readonly repo: TerraformPlansRepository,
    private readonly clock: Clock,
  ) {}

  /** Stores a task's plan summary (before confirmation is offered); a later plan of the task replaces it. */
  async recordPlan(task: PlannedTask, inventoryId: number | null, summary: PlanSummary): Promise<void> {
    const s = planSummarySchema.parse(summary);
    await this.repo.upsertPlan({
      task_id: task.id,
      project_id: task.project_id,
      template_id: task.template_id,
      inventory_id: inventoryId,
      summary: JSON.stringify(s),
      confirm_role: s.policy?.confirm_role ?? null,
      confirmed_by: null,
      confirmed_at: null,
      created: this.clock.now().toISOString(),
    });
  }

  /** A single task's `plan_summary` and `plan_confirmation` (both null when it made no plan). */
  async taskExtras(
    projectId: number,
    taskId: number,
  ): Promise<{ plan_summary: PlanSummary | null; plan_confirmation: PlanConfirmation | null }> {
    const row = await this.repo.findPlan(projectId, taskId);
    return {
      plan_summary: row ? parseSummary(row.summary) : null,
      plan_confirmation: row ? confirmationOf(row) : null,
    };
  }

  /**
   * Before a confirm: a plan whose policy names a role may be confirmed only by that role or a
   * higher one (admins always may); 403 `confirm_role_required` with the role otherwise.
   */
  async checkConfirm(projectId: number, taskId: number, who: Confirmer): Promise<void> {
    const row = await this.repo.findPlan(projectId, taskId);
    const role = row?.confirm_role;
    if (!role || who.admin) return;
    const needed = (PROJECT_ROLES as readonly string[]).includes(role)
      ? (role as (typeof PROJECT_ROLES)[number])
      : 'owner';
    if (!roleAtLeast(who.role ?? null, needed))
      throw new ForbiddenError(`Only a project ${needed} may confirm this plan`, {
        code: ErrorCodes.confirmRoleRequired,
        role: needed,
      });
  }

  /** After a confirm: who confirmed the plan, and when. */
  async confirmed(taskId: number, userId: number | null): Promise<void> {
    await this.repo.setConfirmed(taskId, userId, this.clock.now().toISOString());
  }

  /** A drift check or a task start for a template: only Terraform/OpenTofu templates plan. */
  checkDriftTemplate(app: string, field = 'params.drift_check'): void {
    if (!TERRAFORM_APPS.includes(app))
      throw new ValidationError('Drift checks run Terraform or OpenTofu templates only', {
        code: ErrorCodes.driftNotTerraform,
        field,
      });
  }

  /**
   * Stores a drift check's finding for its template and workspace; answers whether it is news worth
   * a notification: drifted now, and either clean/unknown before or drifted with other counts or
   * resources before (the same drift found again every night notifies once).
   */
  async recordDrift(task: PlannedTask, inventoryId: number | null, finding: DriftFinding): Promise<boolean> {
    const scope = driftScope(task.template_id, inventoryId);
    const before = await this.repo.findDrift(scope);
    const summary =
      finding.drifted && finding.summary ? JSON.stringify(planSummarySchema.parse(finding.summary)) : null;
    await this.repo.upsertDrift({
      scope,
      project_id: task.project_id,
      template_id: task.template_id,
      inventory_id: inventoryId,
      status: finding.drifted ? 'drifted' : 'clean',
      checked_at: this.clock.now().toISOString(),
      summary,
      task_id: task.id,
      refresh_only: finding.refreshOnly ? 1 : 0,
    });
    if (!finding.drifted) return false;
    if (before?.status !== 'drifted') return true;
    return fingerprint(before.summary) !== fingerprint(summary);
  }

  /** The drift of workspace inventories (the worst of their templates' findings); UNKNOWN_DRIFT when never checked. */
  async driftOfInventories(projectId: number, inventoryIds: number[]): Promise<Map<number, Drift>> {
    const rows = await this.repo.driftOfInventories(projectId, inventoryIds);
    const out = new Map<number, Drift>();
    for (const id of inventoryIds) out.set(id, worst(rows.filter((r) => r.inventory_id === id)) ?? UNKNOWN_DRIFT);
    return out;
  }

  /** The drift of templates (the worst of their workspaces' findings); null for one never checked. */
  async driftOfTemplates(projectId: number, templateIds: number[]): Promise<Map<number, Drift | null>> {
    const rows = await this.repo.driftOfTemplates(projectId, templateIds.length > 20 ? undefined : templateIds);
    const out = new Map<number, Drift | null>();
    for (const id of templateIds) out.set(id, worst(rows.filter((r) => r.template_id === id)));
    return out;
  }
}

/** Drifted findings first (the latest of them), else the latest finding; null for none. */
function worst(rows: TerraformDriftRow[]): Drift | null {
  if (!rows.length) return null;
  const sorted = [...rows].sort(
    (a, b) =>
      Number(b.status === 'drifted') - Number(a.status === 'drifted') || b.checked_at.localeCompare(a.checked_at),
  );
  return presentDrift(sorted[0]!);
}

export function presentDrift(r: TerraformDriftRow): Drift {
  return {
    status: r.status === 'drifted' || r.status === 'clean' ? r.status : 'unknown',
    checked_at: r.checked_at,
    summary: r.summary ? parseSummary(r.summary) : null,
    task_id: r.task_id,
    template_id: r.template_id,
    refresh_only: r.refresh_only === 1,
  };
}

function confirmationOf(r: PlanWithConfirmer): PlanConfirmation | null {
  return r.confirmed_at ? { user_id: r.confirmed_by, user_name: r.confirmer_name, at: r.confirmed_at } : null;
}

function parseSummary(text: string): PlanSummary | null {
  try {
    const p = planSummarySchema.safeParse(JSON.parse(text));
    return p.success ? p.data : null;
  } catch {
    return null;
  }
}

/** What makes two drift findings the same news: the counts and the resources with their actions. */
function fingerprint(text: string | null): string {
  const s = text ? parseSummary(text) : null;
  if (!s) return '';
  return JSON.stringify([
    s.create,
    s.update,
    s.replace,
    s.destroy,
    s.resources.map((r) => `${r.action} ${r.address}`).sort(),
  ]);
}
