import { describe, expect, it } from 'vitest';
import { issueCode } from './coded.js';
import { workflowInputSchema } from './workflows.js';

const t = (id: string, template_id = 1) => ({ id, type: 'template', template_id });
const parse = (body: unknown) => workflowInputSchema.safeParse(body);
/** The first issue's text, code, node and path. */
function refusal(body: unknown): { message: string; path: string; code?: string; node?: string | number; [param: string]: unknown } {
  const r = parse(body);
  if (r.success) throw new Error('accepted');
  const issue = r.error.issues[0]!;
  return { message: issue.message, ...issueCode(issue), path: issue.path.join('.') };
}

describe('workflow graph', () => {
  it('accepts a build → test → approval → deploy graph with a rollback on failure, and fills defaults', () => {
    const r = parse({
      name: 'Release',
      nodes: [t('build'), t('test', 2), { id: 'approve', type: 'approval', approvers: { roles: ['owner'] }, required_approvals: 2 }, t('deploy', 3), t('rollback', 4)],
      edges: [
        { from: 'build', to: 'test', on: 'success' },
        { from: 'test', to: 'approve', on: 'success' },
        { from: 'approve', to: 'deploy', on: 'success' },
        { from: 'deploy', to: 'rollback', on: 'failure' },
      ],
      joins: null,
      description: null,
    });
    expect(r.success).toBe(true);
    expect(r.data!.nodes[0]).toMatchObject({ retries: 0, retry_delay_seconds: 0, allow_self_approval: false, on_timeout: 'reject' });
    expect(r.data!.description).toBe('');
    expect(r.data!.joins).toEqual({});
  });

  it('refuses a cycle, naming a node on it, also a self-edge', () => {
    const cycle = refusal({ name: 'w', nodes: [t('a'), t('b'), t('c')], edges: [{ from: 'a', to: 'b', on: 'success' }, { from: 'b', to: 'c', on: 'always' }, { from: 'c', to: 'b', on: 'failure' }] });
    expect(cycle).toMatchObject({ code: 'workflow_cycle', path: 'edges' });
    expect(['b', 'c']).toContain(cycle.node);
    expect(cycle.message).toContain(`"${cycle.node}"`);
    expect(refusal({ name: 'w', nodes: [t('a')], edges: [{ from: 'a', to: 'a', on: 'failure' }] })).toMatchObject({ code: 'workflow_cycle', node: 'a' });
  });

  it('a long chain is checked without recursion', () => {
    const nodes = Array.from({ length: 200 }, (_, i) => t(`n${i}`));
    const edges = nodes.slice(1).map((n, i) => ({ from: `n${i}`, to: n.id, on: 'success' }));
    expect(parse({ name: 'w', nodes, edges }).success).toBe(true);
    expect(refusal({ name: 'w', nodes, edges: [...edges, { from: 'n199', to: 'n0', on: 'success' }] })).toMatchObject({ code: 'workflow_cycle' });
  });

  it('names what is wrong with a node, an edge or a join', () => {
    expect(refusal({ name: 'w', nodes: [t('a'), t('a')] })).toMatchObject({ code: 'workflow_duplicate_node', node: 'a', path: 'nodes.1.id' });
    expect(refusal({ name: 'w', nodes: [{ id: 'a', type: 'template' }] })).toMatchObject({ code: 'workflow_node_template_required', node: 'a', path: 'nodes.0.template_id' });
    expect(refusal({ name: 'w', nodes: [{ id: 'sub', type: 'workflow' }] })).toMatchObject({ code: 'workflow_node_workflow_required', node: 'sub' });
    expect(refusal({ name: 'w', nodes: [{ id: 'ok', type: 'approval' }] })).toMatchObject({ code: 'workflow_approvers_required', node: 'ok' });
    expect(refusal({ name: 'w', nodes: [{ id: 'ok', type: 'approval', approvers: { users: [1, 2] }, required_approvals: 3 }] })).toMatchObject({ code: 'workflow_too_few_approvers', node: 'ok' });
    expect(refusal({ name: 'w', nodes: [t('a')], edges: [{ from: 'a', to: 'ghost', on: 'success' }] })).toMatchObject({ code: 'workflow_unknown_node', node: 'ghost', path: 'edges.0.to' });
    expect(refusal({ name: 'w', nodes: [t('a'), t('b')], edges: [{ from: 'a', to: 'b', on: 'success' }, { from: 'a', to: 'b', on: 'success' }] })).toMatchObject({ code: 'workflow_duplicate_edge', path: 'edges.1' });
    expect(refusal({ name: 'w', nodes: [t('a')], joins: { ghost: 'all' } })).toMatchObject({ code: 'workflow_unknown_node', node: 'ghost', path: 'joins.ghost' });
    expect(refusal({ name: 'w', nodes: [t('-a')] })).toMatchObject({ code: 'workflow_node_id_invalid', path: 'nodes.0.id' });
    expect(refusal({ name: 'w', nodes: [] })).toMatchObject({ code: 'workflow_empty', path: 'nodes' });
    expect(refusal({ name: 'w', nodes: [{ ...t('a'), retries: 11 }] })).toMatchObject({ code: 'out_of_range', label_key: 'retries', path: 'nodes.0.retries' });
    expect(refusal({ name: 'w', nodes: [t('a')], edges: [{ from: 'a', to: 'a', on: 'sometimes' }] })).toMatchObject({ code: 'must_be_one_of', path: 'edges.0.on' });
    expect(refusal({ name: '', nodes: [t('a')] })).toMatchObject({ code: 'field_required', path: 'name' });
  });
});
