import type { Insertable, Kysely, Selectable } from 'kysely';
import { insertReturningId, insertUnlessDuplicate } from '../../db/portable.js';
import type { ApprovalTable, ApprovalVoteTable } from '../../db/tables/approval.js';
import type { Database } from '../../db/types.js';

export type ApprovalRow = Selectable<ApprovalTable>;
export type VoteRow = Selectable<ApprovalVoteTable> & { username: string | null };

/** A project member as eligibility needs it: their role and the directory group that made the membership. */
export interface MemberFacts {
  role: string;
  mapped_group: string | null;
}

/** The SQL of approvals. Every decision is a conditional UPDATE from `pending`: of racing writers one wins. */
export class ApprovalsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  insert(values: Insertable<ApprovalTable>): Promise<number> {
    return insertReturningId(this.db, 'approval', values);
  }

  /** A workflow node's approval of one try, if it was opened already (by this node or another). */
  async findForNode(runId: number, nodeId: string, attempt: number): Promise<ApprovalRow | undefined> {
    return this.db
      .selectFrom('approval')
      .selectAll()
      .where('workflow_run_id', '=', runId)
      .where('node_id', '=', nodeId)
      .where('attempt', '=', attempt)
      .executeTakeFirst();
  }

  async findForTask(taskId: number): Promise<ApprovalRow | undefined> {
    return this.db.selectFrom('approval').selectAll().where('task_id', '=', taskId).executeTakeFirst();
  }

  findById(id: number): Promise<ApprovalRow | undefined> {
    return this.db.selectFrom('approval').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** By id within a project only: an id of another project is not found. */
  find(projectId: number, id: number): Promise<ApprovalRow | undefined> {
    return this.db
      .selectFrom('approval')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** A project's approvals, newest first; with `taskId`, only the one that task of the project waits for. */
  list(projectId: number, pendingOnly: boolean, taskId?: number, limit = 500): Promise<ApprovalRow[]> {
    let q = this.db.selectFrom('approval').selectAll().where('project_id', '=', projectId);
    if (pendingOnly) q = q.where('status', '=', 'pending');
    if (taskId !== undefined) q = q.where('task_id', '=', taskId);
    return q.orderBy('id', 'desc').limit(limit).execute();
  }

  /** Pending approvals in the projects the user belongs to (every project for an admin). */
  pendingFor(userId: number, admin: boolean, limit = 500): Promise<ApprovalRow[]> {
    let q = this.db.selectFrom('approval').selectAll().where('status', '=', 'pending');
    if (!admin)
      q = q.where(
        'project_id',
        'in',
        this.db.selectFrom('project_user').select('project_id').where('user_id', '=', userId),
      );
    return q.orderBy('id', 'desc').limit(limit).execute();
  }

  votes(approvalIds: number[]): Promise<VoteRow[]> {
    if (approvalIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('approval_vote')
      .leftJoin('user', 'user.id', 'approval_vote.user_id')
      .select([
        'approval_vote.approval_id',
        'approval_vote.user_id',
        'approval_vote.decision',
        'approval_vote.comment',
        'approval_vote.created',
        'user.username',
      ])
      .where('approval_vote.approval_id', 'in', approvalIds)
      .orderBy('approval_vote.created')
      .orderBy('approval_vote.user_id')
      .execute();
  }

  /** The user's vote, unless they voted already (the key refuses a second one, also in a burst). */
  addVote(vote: Insertable<ApprovalVoteTable>): Promise<boolean> {
    return insertUnlessDuplicate(this.db, 'approval_vote', vote);
  }

  async countVotes(approvalId: number): Promise<{ approve: number; reject: number }> {
    const rows = await this.db
      .selectFrom('approval_vote')
      .select(['decision', (eb) => eb.fn.countAll<number>().as('n')])
      .where('approval_id', '=', approvalId)
      .groupBy('decision')
      .execute();
    const n = (d: string) => Number(rows.find((r) => r.decision === d)?.n ?? 0);
    return { approve: n('approve'), reject: n('reject') };
  }

  /** pending → `status`; false when it was decided already (by a vote, the sweep or a cancel elsewhere). */
  async decide(id: number, status: 'approved' | 'rejected', decidedBy: string, decided: string): Promise<boolean> {
    const r = await this.db
      .updateTable('approval')
      .set({ status, decided_by: decidedBy, decided })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Pending approvals whose deadline has passed (ISO times compare as text). */
  overdue(now: string, limit = 100): Promise<ApprovalRow[]> {
    return this.db
      .selectFrom('approval')
      .selectAll()
      .where('status', '=', 'pending')
      .where('deadline', 'is not', null)
      .where('deadline', '<=', now)
      .orderBy('deadline')
      .limit(limit)
      .execute();
  }

  /** The user's membership of the project, or undefined for a non-member. */
  member(projectId: number, userId: number): Promise<MemberFacts | undefined> {
    return this.db
      .selectFrom('project_user')
      .select(['role', 'mapped_group'])
      .where('project_id', '=', projectId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
  }

  /** Every member of the project with what eligibility and notification need. */
  members(projectId: number): Promise<Array<MemberFacts & { user_id: number; username: string; email: string }>> {
    return this.db
      .selectFrom('project_user')
      .innerJoin('user', 'user.id', 'project_user.user_id')
      .select(['project_user.user_id', 'project_user.role', 'project_user.mapped_group', 'user.username', 'user.email'])
      .where('project_user.project_id', '=', projectId)
      .orderBy('project_user.user_id')
      .execute();
  }

  /** Marks a link used: true only for the first use of this token, whichever node sees it. */
  useLink(tokenHash: string, approvalId: number, userId: number, used: string): Promise<boolean> {
    return insertUnlessDuplicate(this.db, 'approval_link_use', {
      token_hash: tokenHash,
      approval_id: approvalId,
      user_id: userId,
      used,
    });
  }

  /** What a notification says of an approval: its project (and whether it takes alerts), template and requester. */
  async notificationContext(a: ApprovalRow): Promise<{
    projectName: string;
    alert: boolean;
    alertChat: string | null;
    templateName: string | null;
    requester: string | null;
  }> {
    const project = await this.db
      .selectFrom('project')
      .select(['name', 'alert', 'alert_chat'])
      .where('id', '=', a.project_id)
      .executeTakeFirst();
    const template =
      a.template_id === null
        ? undefined
        : await this.db.selectFrom('template').select('name').where('id', '=', a.template_id).executeTakeFirst();
    return {
      projectName: project?.name ?? '',
      alert: project?.alert === 1,
      alertChat: project?.alert_chat ?? null,
      templateName: template?.name ?? null,
      requester: a.requester_id === null ? null : await this.username(a.requester_id),
    };
  }

  async username(userId: number): Promise<string | null> {
    return (
      (await this.db.selectFrom('user').select('username').where('id', '=', userId).executeTakeFirst())?.username ??
      null
    );
  }

  async projectName(projectId: number): Promise<string> {
    return (
      (await this.db.selectFrom('project').select('name').where('id', '=', projectId).executeTakeFirst())?.name ?? ''
    );
  }
}
