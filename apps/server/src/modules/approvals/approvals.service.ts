import {
  ErrorCodes,
  workflowApproversSchema,
  type Approval,
  type ApprovalLinkAnswer,
  type ApprovalPolicy,
  type WorkflowApprovers,
} from '@gantry/contracts';
import type { Insertable } from 'kysely';
import type { ApprovalTable } from '../../db/tables/approval.js';
import type { Clock } from '../../platform/clock.js';
import { sha256 } from '../../platform/crypto.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';
import type { EventsService } from '../events/events.service.js';
import { LINK_LIFETIME_MS, type ApprovalLinkSigner } from './approval-link.js';
import { presentApproval } from './approvals.presenter.js';
import type { ApprovalRow, ApprovalsRepository, MemberFacts } from './approvals.repository.js';
import { isEligible } from './eligibility.js';
import type { ApprovalNotifier } from './approval-notifier.js';
import type { ApprovalTaskGate, TaskApprovals } from './task-approvals.port.js';

/** What an approval node of a workflow asks for (its node's fields). */
export interface ApprovalSpec {
  approvers: WorkflowApprovers;
  required_approvals: number;
  allow_self_approval: boolean;
  timeout_seconds?: number | null;
  on_timeout: 'reject' | 'approve';
}

export interface NodeApprovalRequest {
  projectId: number;
  runId: number;
  workflowId: number;
  nodeId: string;
  attempt: number;
  requesterId: number | null;
  title: string;
  spec: ApprovalSpec;
}

/** `timed_out`: nobody decided before the deadline and the timeout meant reject. */
export type ApprovalState = 'pending' | 'approved' | 'rejected' | 'timed_out';

/** Who asks: the signed-in user. */
export interface ApprovalUser {
  id: number;
  username: string;
  admin: boolean;
}

/**
 * Approvals of workflow nodes and of tasks held by their template's policy. Everything goes
 * through the database: a vote is a row under a unique key, a decision a conditional UPDATE from
 * `pending`, so racing votes, timeout sweeps on several nodes and cancels decide each approval
 * once, and only the winner applies the result (releases or rejects the task, tells listeners).
 */
export class ApprovalsService implements TaskApprovals {
  /** Where votes and decisions are recorded (the composition root wires the audit trail in). */
  audit: AuditRecorder = noAudit;
  /** The tasks module: what a decision does to the task an approval holds. */
  tasks: ApprovalTaskGate | null = null;
  /** Approvers are told through the notification channels; null: nobody is told. */
  notifier: ApprovalNotifier | null = null;
  private readonly listeners = new Set<(a: ApprovalRow) => void>();

  constructor(
    private readonly repo: ApprovalsRepository,
    private readonly signer: ApprovalLinkSigner,
    private readonly events: Pick<EventsService, 'record'>,
    private readonly clock: Clock,
  ) {}

  /** Hears every decision this node made (a workflow driver wakes the run; tests wait on it). */
  onDecided(fn: (a: ApprovalRow) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Opens the approval of a workflow node's try; a second call (any node) answers the same id. */
  async openForNode(r: NodeApprovalRequest): Promise<number> {
    const existing = await this.repo.findForNode(r.runId, r.nodeId, r.attempt);
    if (existing) return existing.id;
    return this.open(
      {
        ...this.values(r.projectId, r.title, r.requesterId, r.spec),
        workflow_run_id: r.runId,
        workflow_id: r.workflowId,
        node_id: r.nodeId,
        attempt: r.attempt,
      },
      () => this.repo.findForNode(r.runId, r.nodeId, r.attempt),
    );
  }

  /** Opens the approval a task of a template with a policy waits for in `waiting_approval`. */
  async openForTask(
    task: { id: number; project_id: number; user_id: number | null },
    template: { id: number; name: string; approval_policy?: ApprovalPolicy | null },
  ): Promise<number> {
    const policy = template.approval_policy;
    if (!policy) throw new Error(`template ${template.id} has no approval policy`);
    const existing = await this.repo.findForTask(task.id);
    if (existing) return existing.id;
    return this.open(
      {
        ...this.values(task.project_id, `Task #${task.id} of ${template.name}`, task.user_id, policy),
        task_id: task.id,
        template_id: template.id,
      },
      () => this.repo.findForTask(task.id),
    );
  }

  /** Where an approval stands; a pending one past its deadline is decided by its timeout first. */
  async state(approvalId: number): Promise<ApprovalState> {
    let row = await this.repo.findById(approvalId);
    // Gone with its project: nothing can approve it any more.
    if (!row) return 'rejected';
    if (this.overdue(row)) {
      await this.timeOut(row);
      row = (await this.repo.findById(approvalId)) ?? row;
    }
    // A run tells a gate nobody answered from one an approver refused.
    if (row.status === 'rejected' && row.decided_by === 'timeout') return 'timed_out';
    return row.status as ApprovalState;
  }

  /** A run stopped or a task stopped: its pending approval ends rejected, decided by `canceled`. */
  async cancel(approvalId: number): Promise<void> {
    const row = await this.repo.findById(approvalId);
    if (!row || row.status !== 'pending') return;
    if (await this.repo.decide(row.id, 'rejected', 'canceled', this.now())) {
      await this.events.record({
        projectId: row.project_id,
        userId: null,
        objectType: 'approval',
        objectId: row.id,
        description: `Approval #${row.id} (${row.title}) canceled`,
      });
      this.tell({ ...row, status: 'rejected', decided_by: 'canceled' });
    }
  }

  async cancelForTask(taskId: number): Promise<void> {
    const row = await this.repo.findForTask(taskId);
    if (row) await this.cancel(row.id);
  }

  /** A project's approvals; with `taskId`, the one a task of the project waits for (or went through). */
  async list(projectId: number, user: ApprovalUser, status: 'pending' | 'all', taskId?: number): Promise<Approval[]> {
    const rows = await this.repo.list(projectId, status === 'pending', taskId);
    const member = await this.repo.member(projectId, user.id);
    return this.present(rows, user, () => Promise.resolve(member));
  }

  async get(projectId: number, id: number, user: ApprovalUser): Promise<Approval> {
    const row = await this.find(projectId, id);
    const [out] = await this.present([row], user, () => this.repo.member(projectId, user.id));
    return out!;
  }

  /** The caller's inbox: pending approvals, across the projects they belong to, they may decide now. */
  async inbox(user: ApprovalUser): Promise<Approval[]> {
    const rows = await this.repo.pendingFor(user.id, user.admin);
    const members = new Map<number, Promise<MemberFacts | undefined>>();
    const memberOf = (projectId: number) => {
      if (!members.has(projectId)) members.set(projectId, this.repo.member(projectId, user.id));
      return members.get(projectId)!;
    };
    const out: Approval[] = [];
    for (const row of rows) {
      const [a] = await this.present([row], user, () => memberOf(row.project_id));
      if (a?.can_decide) out.push(a);
    }
    return out;
  }

  /**
   * One vote. Only an eligible approver votes, once; approved once `required_approvals` approve,
   * rejected by the first reject. The vote is a row under (approval, user): of two at once from
   * one user, one is refused; the decision is a conditional UPDATE: of racing deciders one wins.
   */
  async vote(
    projectId: number,
    id: number,
    user: ApprovalUser,
    decision: 'approve' | 'reject',
    comment: string,
  ): Promise<Approval> {
    let row = await this.find(projectId, id);
    if (this.overdue(row)) {
      await this.timeOut(row);
      row = await this.find(projectId, id);
    }
    if (row.status !== 'pending')
      throw new ConflictError(`The approval was already ${row.status}`, {
        code: ErrorCodes.approvalDecided,
        status: row.status,
      });
    const member = (await this.repo.member(projectId, user.id)) ?? null;
    if (!isEligible(this.spec(row), { userId: user.id, member }))
      throw new ForbiddenError('You are not one of the approvers of this approval', {
        code: ErrorCodes.approvalNotApprover,
      });
    const now = this.now();
    if (!(await this.repo.addVote({ approval_id: row.id, user_id: user.id, decision, comment, created: now })))
      throw new ConflictError('You have already voted on this approval', { code: ErrorCodes.approvalAlreadyVoted });
    await this.events.record({
      projectId,
      userId: user.id,
      objectType: 'approval',
      objectId: row.id,
      description: `${user.username} ${decision === 'approve' ? 'approved' : 'rejected'} ${row.title}${comment ? `: ${comment}` : ''}`,
    });
    await this.audit.record({
      action: 'update',
      objectType: 'approval',
      objectId: row.id,
      projectId,
      before: { status: 'pending' },
      after: { decision, comment, task_id: row.task_id, workflow_run_id: row.workflow_run_id, node_id: row.node_id },
    });
    const votes = await this.repo.countVotes(row.id);
    if (decision === 'reject') await this.decide(row, 'rejected', user.username);
    else if (votes.approve >= row.required_approvals) await this.decide(row, 'approved', user.username);
    return this.get(projectId, id, user);
  }

  /**
   * A signed one-time link from a notification: good when its signature holds, it has not
   * expired, it was made for this user and it was not used before (the first use marks it, on
   * any node). Answers where it leads; the approval page checks access as for any other visit.
   */
  async useLink(user: ApprovalUser, token: string): Promise<ApprovalLinkAnswer> {
    const check = this.signer.check(token, this.clock.now().getTime());
    if (!check.ok) {
      if (check.reason === 'expired')
        throw new ValidationError('This approval link has expired', {
          code: ErrorCodes.approvalLinkExpired,
          field: 'token',
        });
      throw new ValidationError('This approval link is not valid', {
        code: ErrorCodes.approvalLinkInvalid,
        field: 'token',
      });
    }
    const { aid, uid } = check.payload;
    const row = uid === user.id ? await this.repo.findById(aid) : undefined;
    if (!row)
      throw new ValidationError('This approval link is not valid', {
        code: ErrorCodes.approvalLinkInvalid,
        field: 'token',
      });
    if (!(await this.repo.useLink(sha256(token), aid, uid, this.now())))
      throw new ValidationError('This approval link was used already', {
        code: ErrorCodes.approvalLinkUsed,
        field: 'token',
      });
    return { project_id: row.project_id, approval_id: row.id };
  }

  /** The signed one-time link for one approver (notifications carry it). */
  linkToken(approval: { id: number; deadline: string | null }, userId: number): string {
    const until = this.clock.now().getTime() + LINK_LIFETIME_MS;
    const exp = approval.deadline ? Math.min(Date.parse(approval.deadline), until) : until;
    return this.signer.sign({ aid: approval.id, uid: userId, exp });
  }

  /**
   * The timeout sweep: pending approvals past their deadline are decided by `on_timeout`. Every
   * node sweeps; the conditional UPDATE lets one of them decide each approval and apply it.
   */
  async sweep(): Promise<number> {
    let decided = 0;
    for (const row of await this.repo.overdue(this.now())) if (await this.timeOut(row)) decided += 1;
    return decided;
  }

  private async open(
    values: Insertable<ApprovalTable>,
    existing: () => Promise<ApprovalRow | undefined>,
  ): Promise<number> {
    let id: number;
    try {
      id = await this.repo.insert(values);
    } catch (e) {
      // Another node (or call) opened it first: the unique key says so; answer theirs.
      const row = await existing();
      if (row) return row.id;
      throw e;
    }
    await this.events.record({
      projectId: values.project_id,
      userId: values.requester_id ?? null,
      objectType: 'approval',
      objectId: id,
      description: `Approval requested: ${values.title}`,
    });
    const row = await this.repo.findById(id);
    if (row && this.notifier) void this.notifier.requested(row).catch(() => undefined);
    return id;
  }

  private values(projectId: number, title: string, requesterId: number | null, spec: ApprovalSpec) {
    const now = this.clock.now();
    return {
      project_id: projectId,
      status: 'pending',
      title: title.slice(0, 1000),
      requester_id: requesterId,
      approvers: JSON.stringify(workflowApproversSchema.parse(spec.approvers)),
      required_approvals: spec.required_approvals,
      allow_self_approval: spec.allow_self_approval ? 1 : 0,
      deadline: spec.timeout_seconds ? new Date(now.getTime() + spec.timeout_seconds * 1000).toISOString() : null,
      on_timeout: spec.on_timeout === 'approve' ? 'approve' : 'reject',
      created: now.toISOString(),
    };
  }

  private async find(projectId: number, id: number): Promise<ApprovalRow> {
    const row = await this.repo.find(projectId, id);
    if (!row) throw new NotFoundError('Approval not found', { code: ErrorCodes.approvalNotFound });
    return row;
  }

  private overdue(row: ApprovalRow): boolean {
    return row.status === 'pending' && row.deadline !== null && row.deadline <= this.now();
  }

  /** Decides an overdue approval by its `on_timeout`; true when this call decided it. */
  private async timeOut(row: ApprovalRow): Promise<boolean> {
    return this.decide(row, row.on_timeout === 'approve' ? 'approved' : 'rejected', 'timeout');
  }

  /** pending → decided, once; the winner records it and applies it to what waits. */
  private async decide(row: ApprovalRow, status: 'approved' | 'rejected', by: string): Promise<boolean> {
    const decided = this.now();
    if (!(await this.repo.decide(row.id, status, by, decided))) return false;
    await this.events.record({
      projectId: row.project_id,
      userId: null,
      objectType: 'approval',
      objectId: row.id,
      description: `${row.title}: ${status} (${by === 'timeout' ? 'timed out' : `by ${by}`})`,
    });
    if (by === 'timeout')
      await this.audit.record({
        action: 'update',
        objectType: 'approval',
        objectId: row.id,
        projectId: row.project_id,
        before: { status: 'pending' },
        after: { status, decided_by: 'timeout' },
        caller: { actorId: null, actorLogin: null, authKind: 'system' },
      });
    if (row.task_id !== null && this.tasks) {
      if (status === 'approved') await this.tasks.approvalGranted(row.task_id);
      else await this.tasks.approvalRefused(row.task_id, by === 'timeout' ? 'timed out' : `rejected by ${by}`);
    }
    this.tell({ ...row, status, decided, decided_by: by });
    return true;
  }

  private tell(row: ApprovalRow): void {
    for (const l of this.listeners) {
      try {
        l(row);
      } catch {
        // A listener's failure is its own.
      }
    }
  }

  private spec(row: ApprovalRow) {
    return {
      approvers: parseApprovers(row.approvers),
      requester_id: row.requester_id,
      allow_self_approval: row.allow_self_approval === 1,
    };
  }

  private async present(
    rows: ApprovalRow[],
    user: ApprovalUser,
    memberOf: () => Promise<MemberFacts | undefined>,
  ): Promise<Approval[]> {
    const votes = await this.repo.votes(rows.map((r) => r.id));
    const member = rows.length ? ((await memberOf()) ?? null) : null;
    const now = this.now();
    return rows.map((row) => {
      const mine = votes.filter((v) => v.approval_id === row.id);
      const open = row.status === 'pending' && !(row.deadline !== null && row.deadline <= now);
      const canDecide =
        open && !mine.some((v) => v.user_id === user.id) && isEligible(this.spec(row), { userId: user.id, member });
      return presentApproval(row, parseApprovers(row.approvers), mine, canDecide);
    });
  }

  private now(): string {
    return this.clock.now().toISOString();
  }
}

function parseApprovers(text: string): WorkflowApprovers {
  const parsed = workflowApproversSchema.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : { users: [], roles: [], groups: [] };
}
