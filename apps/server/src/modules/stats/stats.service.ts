import type { StatsEntry } from '@gantry/contracts';
import type { StatsRepository } from './stats.repository.js';

/** Success, error and stopped counts per UTC day since a date, one entry per day with tasks. */
export class StatsService {
  constructor(private readonly repo: StatsRepository) {}

  async perDay(projectId: number, start: string, filter: { templateId?: number; userId?: number }): Promise<StatsEntry[]> {
    const rows = await this.repo.countByDay(projectId, `${start}T00:00:00.000Z`, filter);
    const byDate = new Map<string, StatsEntry>();
    for (const r of rows) {
      const entry = byDate.get(r.date) ?? { date: r.date, count_by_status: { success: 0, error: 0, stopped: 0 } };
      entry.count_by_status[r.status as 'success' | 'error' | 'stopped'] = Number(r.n);
      byDate.set(r.date, entry);
    }
    return [...byDate.values()];
  }
}
