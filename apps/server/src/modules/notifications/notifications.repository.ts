import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';

/** What a notification says about a task, and whether its project and template want one. */
export interface TaskNotificationContext {
  project_id: number;
  project_name: string;
  project_alert: number;
  alert_chat: string | null;
  template_id: number;
  template_name: string;
  suppress_success_alerts: number;
  user_name: string | null;
  schedule_id: number | null;
  integration_id: number | null;
}

/** The SQL of notifications: one task's context and the members who take alerts. */
export class NotificationsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  context(taskId: number): Promise<TaskNotificationContext | undefined> {
    return this.db
      .selectFrom('task')
      .innerJoin('project', 'project.id', 'task.project_id')
      .innerJoin('template', 'template.id', 'task.template_id')
      .leftJoin('user', 'user.id', 'task.user_id')
      .select([
        'project.id as project_id',
        'project.name as project_name',
        'project.alert as project_alert',
        'project.alert_chat',
        'template.id as template_id',
        'template.name as template_name',
        'template.suppress_success_alerts',
        'user.name as user_name',
        'task.schedule_id',
        'task.integration_id',
      ])
      .where('task.id', '=', taskId)
      .executeTakeFirst();
  }

  /** Distinct emails of the project's members whose alert is on. */
  async alertEmails(projectId: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('project_user')
      .innerJoin('user', 'user.id', 'project_user.user_id')
      .select('user.email')
      .where('project_user.project_id', '=', projectId)
      .where('user.alert', '=', 1)
      .where('user.email', '!=', '')
      .orderBy('user.id')
      .execute();
    return [...new Set(rows.map((r) => r.email.trim()).filter(Boolean))];
  }
}
