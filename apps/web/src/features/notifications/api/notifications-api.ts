import type {
  NotificationDelivery,
  NotificationDestination,
  NotificationDestinationInput,
  NotificationRule,
  NotificationRuleInput,
  NotificationTestResult,
} from '@gantry/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** A project's notifications, or the server-wide (global, admin-only) ones when `projectId` is null. */
export type NotificationScope = { projectId: number | null };

/** How many deliveries the log shows (the newest first). */
export const DELIVERY_LOG_LIMIT = 50;

const root = (s: NotificationScope) => (s.projectId === null ? '' : `/project/${s.projectId}`);
const destinationsUrl = (s: NotificationScope) => `${root(s)}/notification-destinations`;
const rulesUrl = (s: NotificationScope) => `${root(s)}/notification-rules`;

/**
 * Query keys. A project's sit under `['project', p, 'notifications']` (dropped with the project's
 * cache); the global ones under `['notifications', 'global']`. Saving anything refreshes the subtree,
 * since a rule names its destination and a destination shows its last delivery.
 */
export const notificationKeys = {
  all: (s: NotificationScope) =>
    s.projectId === null
      ? (['notifications', 'global'] as const)
      : (['project', s.projectId, 'notifications'] as const),
  destinations: (s: NotificationScope) => [...notificationKeys.all(s), 'destinations'] as const,
  rules: (s: NotificationScope) => [...notificationKeys.all(s), 'rules'] as const,
  templateRules: (p: number, templateId: number) =>
    [...notificationKeys.all({ projectId: p }), 'rules', 'template', templateId] as const,
  deliveries: (s: NotificationScope, destinationId: number) =>
    [...notificationKeys.all(s), 'deliveries', destinationId] as const,
};

export const notificationQueries = {
  destinations: (s: NotificationScope) =>
    queryOptions({
      queryKey: notificationKeys.destinations(s),
      queryFn: () => api.get<NotificationDestination[]>(destinationsUrl(s)),
    }),
  rules: (s: NotificationScope) =>
    queryOptions({ queryKey: notificationKeys.rules(s), queryFn: () => api.get<NotificationRule[]>(rulesUrl(s)) }),
  /** The rules that apply to one template (the project's, and the template's own). */
  templateRules: (p: number, templateId: number) =>
    queryOptions({
      queryKey: notificationKeys.templateRules(p, templateId),
      queryFn: () => api.get<NotificationRule[]>(`${rulesUrl({ projectId: p })}?template_id=${templateId}`),
    }),
  deliveries: (s: NotificationScope, destinationId: number) =>
    queryOptions({
      queryKey: notificationKeys.deliveries(s, destinationId),
      queryFn: () =>
        api.get<NotificationDelivery[]>(
          `${destinationsUrl(s)}/${destinationId}/deliveries?limit=${DELIVERY_LOG_LIMIT}`,
        ),
    }),
};

/** Creates (id null) or updates a destination. */
export function useSaveDestination(s: NotificationScope, id: number | null) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: NotificationDestinationInput) =>
      id
        ? api.put<NotificationDestination>(`${destinationsUrl(s)}/${id}`, body)
        : api.post<NotificationDestination>(destinationsUrl(s), body),
    onSuccess: () => qc.invalidateQueries({ queryKey: notificationKeys.all(s) }),
  });
}

/** Creates (id null) or updates a rule. */
export function useSaveRule(s: NotificationScope, id: number | null) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: NotificationRuleInput) =>
      id ? api.put<NotificationRule>(`${rulesUrl(s)}/${id}`, body) : api.post<NotificationRule>(rulesUrl(s), body),
    onSuccess: () => qc.invalidateQueries({ queryKey: notificationKeys.all(s) }),
  });
}

/** Deleting a destination (its rules and deliveries go with it) or a rule. */
export function useDeleteNotification(s: NotificationScope, what: 'destinations' | 'rules') {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete(`${what === 'destinations' ? destinationsUrl(s) : rulesUrl(s)}/${id}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: notificationKeys.all(s) }),
  });
}

/** "Send test": delivers a test event now and answers what the receiver said. */
export function useTestDestination(s: NotificationScope) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.post<NotificationTestResult>(`${destinationsUrl(s)}/${id}/test`),
    // The test is logged as a delivery and becomes the destination's last one.
    onSettled: () => qc.invalidateQueries({ queryKey: notificationKeys.all(s) }),
  });
}
