import '@xyflow/react/dist/style.css';
import { Box, useTheme } from '@mui/material';
import {
  Background,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  type Connection,
  type Edge,
  type Node,
  type NodeChange,
  type NodeProps,
  type ReactFlowInstance,
} from '@xyflow/react';
import type { WorkflowEdgeCondition, WorkflowNodeStatus } from '@gantry/contracts';
import { memo, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { layoutPosition, type Draft } from './draft';
import { EDGE_LOOK } from './edge-style';

/** What a node box shows: its id, its type's word, what it runs, and (in a run) its status. */
interface BoxData extends Record<string, unknown> {
  label: string;
  kind: string;
  detail: string;
  status?: WorkflowNodeStatus;
  statusText?: string;
  problem: boolean;
}

const STATUS_COLOR: Partial<Record<WorkflowNodeStatus, 'success' | 'error' | 'warning' | 'info'>> = {
  success: 'success',
  failed: 'error',
  running: 'info',
  retry_wait: 'warning',
  waiting_approval: 'warning',
};

const NodeBox = memo(function NodeBox({ data, selected }: NodeProps<Node<BoxData>>) {
  const theme = useTheme();
  const tone = data.problem ? 'error' : data.status ? STATUS_COLOR[data.status] : undefined;
  const border = tone ? theme.palette[tone].main : selected ? theme.palette.primary.main : theme.palette.divider;
  return (
    <Box
      data-testid="workflow-node"
      data-node={data.label}
      data-status={data.status}
      data-problem={data.problem ? 'true' : undefined}
      sx={{
        px: 1.5,
        py: 1,
        minWidth: 150,
        maxWidth: 200,
        bgcolor: 'background.paper',
        color: 'text.primary',
        border: 2,
        borderColor: border,
        borderRadius: 1,
        borderStyle: data.problem ? 'dashed' : 'solid',
        fontSize: 13,
      }}
    >
      <Handle type="target" position={Position.Left} />
      <Box sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>{data.label}</Box>
      <Box sx={{ color: 'text.secondary' }}>{data.kind}</Box>
      {data.detail ? <Box sx={{ overflowWrap: 'anywhere' }}>{data.detail}</Box> : null}
      {data.statusText ? (
        <Box sx={{ fontWeight: 600, color: tone ? `${tone}.main` : 'text.secondary' }}>{data.statusText}</Box>
      ) : null}
      <Handle type="source" position={Position.Right} />
    </Box>
  );
});

const nodeTypes = { box: NodeBox };

/**
 * The graph drawn with @xyflow/react: drag a node to move it, drag from a node's right handle to
 * another's left one to connect them. A visual aid: every action is also in the side panel.
 */
export function WorkflowCanvas({
  draft,
  detail,
  selected,
  problemNode,
  statuses,
  readOnly = false,
  onSelect,
  onMove,
  onConnect,
}: {
  draft: Draft;
  /** What a node runs (its template's or workflow's name), by node id. */
  detail(id: string): string;
  selected: string | null;
  problemNode?: string | null;
  /** A run's node statuses (the run view). */
  statuses?: Record<string, WorkflowNodeStatus>;
  readOnly?: boolean;
  onSelect(id: string | null): void;
  onMove?(id: string, position: { x: number; y: number }): void;
  onConnect?(from: string, to: string): void;
}) {
  const { t } = useTranslation();
  const theme = useTheme();
  const conditionText = (on: WorkflowEdgeCondition) => t(`workflows.conditions.${on}`);
  const nodes = useMemo<Node<BoxData>[]>(
    () =>
      draft.nodes.map((n) => ({
        id: n.id,
        type: 'box',
        position: n.position ?? layoutPosition(draft, n.id),
        selected: n.id === selected,
        ariaLabel: t('workflows.nodeAria', { id: n.id, type: t(`workflows.types.${n.type}`) }),
        data: {
          label: n.id,
          kind: t(`workflows.types.${n.type}`),
          detail: detail(n.id),
          status: statuses?.[n.id],
          statusText: statuses?.[n.id] ? t(`workflows.nodeStatus.${statuses[n.id]}`) : undefined,
          problem: n.id === problemNode,
        },
      })),
    [draft, selected, problemNode, statuses, detail, t],
  );
  const edges = useMemo<Edge[]>(
    () =>
      draft.edges.map((e, i) => {
        const look = EDGE_LOOK[e.on];
        const color = theme.palette[look.color].main;
        return {
          id: `e${i}`,
          source: e.from,
          target: e.to,
          label: conditionText(e.on),
          ariaLabel: t('workflows.edgeAria', { from: e.from, to: e.to, on: conditionText(e.on) }),
          style: { stroke: color, strokeWidth: 2, strokeDasharray: look.dash },
          labelStyle: { fill: theme.palette.text.primary, fontSize: 12 },
          labelBgStyle: { fill: theme.palette.background.paper },
          markerEnd: { type: MarkerType.ArrowClosed, color },
        };
      }),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- conditionText only reads t
    [draft.edges, theme, t],
  );
  // A node added (or removed) from the side panel comes into view: the whole graph is fitted again.
  const [flow, setFlow] = useState<ReactFlowInstance<Node<BoxData>, Edge> | null>(null);
  const count = draft.nodes.length;
  useEffect(() => {
    if (flow && count) void flow.fitView({ maxZoom: 1 });
  }, [flow, count]);
  const onNodesChange = (changes: NodeChange<Node<BoxData>>[]) => {
    for (const c of changes) {
      if (c.type === 'position' && c.position && onMove) onMove(c.id, c.position);
      if (c.type === 'select' && c.selected) onSelect(c.id);
    }
  };
  return (
    <Box
      sx={{ height: { xs: 360, md: 520 }, border: 1, borderColor: 'divider', borderRadius: 1, overflow: 'hidden' }}
      data-testid="workflow-canvas"
    >
      <ReactFlow<Node<BoxData>, Edge>
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={onNodesChange}
        onConnect={(c: Connection) => onConnect?.(c.source, c.target)}
        onPaneClick={() => onSelect(null)}
        onInit={setFlow}
        nodesDraggable={!readOnly}
        nodesConnectable={!readOnly}
        elementsSelectable
        deleteKeyCode={null}
        colorMode={theme.palette.mode}
        fitView
        fitViewOptions={{ maxZoom: 1 }}
        minZoom={0.3}
        ariaLabelConfig={{
          'node.a11yDescription.default': t('workflows.canvasNodeHelp'),
          'node.a11yDescription.keyboardDisabled': t('workflows.canvasNodeHelp'),
          'edge.a11yDescription.default': t('workflows.canvasEdgeHelp'),
          'controls.ariaLabel': t('workflows.canvasControls'),
          'controls.zoomIn.ariaLabel': t('workflows.zoomIn'),
          'controls.zoomOut.ariaLabel': t('workflows.zoomOut'),
          'controls.fitView.ariaLabel': t('workflows.fitView'),
          'controls.interactive.ariaLabel': t('workflows.lockCanvas'),
          'handle.ariaLabel': t('workflows.handle'),
        }}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </Box>
  );
}
