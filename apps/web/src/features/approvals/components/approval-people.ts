import type { Approval, ProjectUser, WorkflowApprovers } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { projectQueries } from '../../../lib/project-queries';

/** Approve votes so far: what "n of N" counts. */
export const approveVotes = (a: Approval) => a.votes.filter((v) => v.decision === 'approve').length;

/**
 * Names of the project's people for an approval's ids (the approval names users by id): the
 * team's list, read once per project and shared by every row. A user no longer in the team shows
 * as "#id".
 */
export function usePeople(projectId: number) {
  const team = useQuery({ ...projectQueries.team(projectId), staleTime: 60_000 }).data;
  const byId = new Map<number, ProjectUser>((team ?? []).map((u) => [u.id, u]));
  return (id: number | null | undefined): string => {
    if (id == null) return '—';
    const u = byId.get(id);
    return u ? u.name || u.username : `#${id}`;
  };
}

/** Who may decide, as words: users by name, roles in the console's language, groups as named. */
export function useApproversText(projectId: number) {
  const { t } = useTranslation();
  const person = usePeople(projectId);
  return (a: WorkflowApprovers): string[] => [
    ...a.users.map((id) => person(id)),
    ...a.roles.map((r) => t('approvals.roleApprovers', { role: t(`roles.${r}`) })),
    ...a.groups.map((g) => t('approvals.groupApprovers', { group: g })),
  ];
}
