import type { WorkflowGraph, WorkflowNodeStatus } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { edgeState, readiness, runOutcome } from './run-graph.js';

const node = (id: string) => ({
  id,
  type: 'template' as const,
  template_id: 1,
  retries: 0,
  retry_delay_seconds: 0,
  allow_self_approval: false,
  on_timeout: 'reject' as const,
});
const graph: WorkflowGraph = {
  nodes: ['a', 'b', 'all', 'any', 'handler'].map(node),
  edges: [
    { from: 'a', to: 'all', on: 'success' },
    { from: 'b', to: 'all', on: 'success' },
    { from: 'a', to: 'any', on: 'success' },
    { from: 'b', to: 'any', on: 'success' },
    { from: 'b', to: 'handler', on: 'failure' },
  ],
  joins: { any: 'any' },
};
const of = (m: Record<string, WorkflowNodeStatus>) => (id: string) => m[id] ?? 'pending';

describe('run graph', () => {
  it('fires an edge on its condition, and declares it dead once its source ended otherwise', () => {
    expect(edgeState({ from: 'a', to: 'b', on: 'always' }, 'failed')).toBe('fired');
    expect(edgeState({ from: 'a', to: 'b', on: 'failure' }, 'success')).toBe('dead');
    expect(edgeState({ from: 'a', to: 'b', on: 'success' }, 'skipped')).toBe('dead');
    expect(edgeState({ from: 'a', to: 'b', on: 'success' }, 'retry_wait')).toBe('open');
  });

  it('starts roots at once; an all-join waits for every edge and is skipped by one dead edge; an any-join starts at the first', () => {
    expect(readiness(graph, 'a', of({}))).toBe('start');
    expect(readiness(graph, 'all', of({ a: 'success', b: 'running' }))).toBe('wait');
    expect(readiness(graph, 'all', of({ a: 'success', b: 'success' }))).toBe('start');
    expect(readiness(graph, 'all', of({ a: 'running', b: 'failed' }))).toBe('skip');
    expect(readiness(graph, 'any', of({ a: 'success', b: 'running' }))).toBe('start');
    expect(readiness(graph, 'any', of({ a: 'failed', b: 'running' }))).toBe('wait');
    expect(readiness(graph, 'any', of({ a: 'failed', b: 'skipped' }))).toBe('skip');
  });

  it('fails a run for a failure no edge handles, or a node stopped outside the run', () => {
    expect(
      runOutcome(graph, of({ a: 'success', b: 'failed', all: 'skipped', any: 'success', handler: 'success' })),
    ).toBe('success');
    expect(
      runOutcome(graph, of({ a: 'failed', b: 'success', all: 'skipped', any: 'success', handler: 'skipped' })),
    ).toBe('failed');
    expect(
      runOutcome(graph, of({ a: 'stopped', b: 'success', all: 'skipped', any: 'success', handler: 'skipped' })),
    ).toBe('failed');
  });
});
