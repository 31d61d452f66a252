import { workflowGraphProblem } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { addEdge, addNode, emptyDraft, removeNode, renameNode, setJoin, toInput, updateNode } from './draft';

/** A draft with two template nodes joined by a failure edge, built as the editor builds it. */
function twoNodes() {
  let d = emptyDraft();
  d = addNode(d, 'template').draft;
  d = addNode(d, 'template').draft;
  d = updateNode(d, 'template-1', { template_id: 1 });
  d = updateNode(d, 'template-2', { template_id: 2 });
  return addEdge({ ...d, name: ' Deploy ' }, { from: 'template-1', to: 'template-2', on: 'failure' });
}

describe('workflow draft', () => {
  it('names new nodes by type, skipping ids in use, and places each right of the last', () => {
    const d = twoNodes();
    expect(d.nodes.map((n) => n.id)).toEqual(['template-1', 'template-2']);
    expect(d.nodes[1]!.position!.x).toBeGreaterThan(d.nodes[0]!.position!.x);
    expect(addNode(removeNode(d, 'template-1'), 'template').id).toBe('template-1');
  });

  it('never adds the same edge twice, nor one from a node to itself', () => {
    const d = twoNodes();
    expect(addEdge(d, { from: 'template-1', to: 'template-2', on: 'failure' }).edges).toHaveLength(1);
    expect(addEdge(d, { from: 'template-1', to: 'template-1', on: 'always' }).edges).toHaveLength(1);
    expect(addEdge(d, { from: 'template-1', to: 'template-2', on: 'success' }).edges).toHaveLength(2);
  });

  it('renames a node with its edges and join, and removes a node with them', () => {
    let d = setJoin(twoNodes(), 'template-2', 'any');
    d = renameNode(d, 'template-2', 'rollback');
    expect(d.edges).toEqual([{ from: 'template-1', to: 'rollback', on: 'failure' }]);
    expect(d.joins).toEqual({ rollback: 'any' });
    d = removeNode(d, 'rollback');
    expect(d.edges).toEqual([]);
    expect(d.joins).toEqual({});
  });

  it('sends a body the contracts accept: name trimmed, joins only where edges meet, no empty overrides', () => {
    let d = setJoin(twoNodes(), 'template-2', 'any');
    d = updateNode(d, 'template-1', { params: { git_branch: '', limit: null } });
    const input = toInput(d);
    expect(input.name).toBe('Deploy');
    expect(input.joins).toEqual({});
    expect(input.nodes[0]!.params).toBeNull();
    expect(workflowGraphProblem(input)).toBeNull();
  });

  it('an approval node starts without approvers, which the shared check names', () => {
    const { draft, id } = addNode(twoNodes(), 'approval');
    expect(workflowGraphProblem(toInput(draft))).toMatchObject({ code: 'workflow_approvers_required', node: id });
  });
});
