import { PAGERDUTY_SEVERITIES } from '@gantry/contracts';
import type { NotificationPayload } from '../../notification-payload.js';
import { isFailureEvent } from '../message-words.js';
import { configText, postJson, requiredSecret, type Sender } from './sender.js';

const EVENTS_API = 'https://events.pagerduty.com/v2/enqueue';

/**
 * PagerDuty Events API v2: a failure triggers an alert, the next success or fix resolves it. The
 * dedup key is per template (per runner, per drifting template), so the resolve closes the alert
 * its failure opened and repeated failures group into one.
 */
export const sendPagerDuty: Sender = (dest, p, ctx) => {
  const url = configText(dest, 'api_url') || EVENTS_API;
  const routingKey = requiredSecret(dest, 'routing_key');
  const dedupKey = pagerDutyDedupKey(p, dest.id);
  if (p.event === 'task_succeeded' || p.event === 'task_fixed')
    return postJson(dest, ctx, url, { routing_key: routingKey, event_action: 'resolve', dedup_key: dedupKey });
  return postJson(dest, ctx, url, {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: dedupKey,
    payload: {
      summary: p.message.title.slice(0, 1024),
      source: 'gantry',
      severity: severity(configText(dest, 'severity'), p.event),
      timestamp: p.time,
      ...(p.template ? { component: p.template.name } : {}),
      ...(p.project ? { group: p.project.name } : {}),
      custom_details: customDetails(p),
    },
    ...(p.message.url ? { links: [{ href: p.message.url, text: 'Open in Gantry' }] } : {}),
  });
};

/** `gantry-<project>-template-<template>`; a runner's and a drift's have their own. */
export function pagerDutyDedupKey(p: NotificationPayload, destinationId: number): string {
  const project = p.project?.id ?? 'global';
  if (p.event === 'runner_offline' && p.runner) return `gantry-runner-${p.runner.id}`;
  if (p.event === 'drift' && p.template) return `gantry-${project}-drift-${p.template.id}`;
  if (p.template) return `gantry-${project}-template-${p.template.id}`;
  // A test or a digest stands alone: its own key, never one that closes a real alert.
  return `gantry-${project}-${p.event}-d${destinationId}`;
}

function severity(configured: string, event: NotificationPayload['event']): string {
  if ((PAGERDUTY_SEVERITIES as readonly string[]).includes(configured)) return configured;
  if (isFailureEvent(event)) return 'error';
  return event === 'drift' || event === 'long_running' ? 'warning' : 'info';
}

function customDetails(p: NotificationPayload): Record<string, unknown> {
  return {
    event: p.event,
    text: p.message.text,
    ...(p.project ? { project: p.project.name } : {}),
    ...(p.template ? { template: p.template.name } : {}),
    ...(p.task
      ? {
          task_id: p.task.id,
          status: p.task.status,
          author: p.task.author,
          version: p.task.version,
          branch: p.task.branch,
        }
      : {}),
    ...(p.plan_summary ? { plan_summary: p.plan_summary } : {}),
    ...(p.drift ? { drift: p.drift } : {}),
    ...(p.runner ? { runner: p.runner.name } : {}),
    ...(p.running_minutes !== null ? { running_minutes: p.running_minutes } : {}),
  };
}
