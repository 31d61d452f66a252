import type { WorkflowEdgeCondition } from '@gantry/contracts';

/**
 * How an edge's condition is drawn: a theme colour and a line pattern, so the condition never
 * rests on colour alone (the label says it too).
 */
export const EDGE_LOOK: Record<WorkflowEdgeCondition, { color: 'success' | 'error' | 'info'; dash?: string }> = {
  success: { color: 'success' },
  failure: { color: 'error', dash: '6 4' },
  always: { color: 'info', dash: '2 4' },
};
