import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import PlayIcon from '@mui/icons-material/PlayArrow';
import SaveIcon from '@mui/icons-material/SaveOutlined';
import { Alert, Box, Button, Paper, Stack, TextField, Typography } from '@mui/material';
import { issueCode, workflowGraphProblem, workflowInputSchema, type WorkflowInput } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { PageHeader } from '../../components/page-header';
import { PageSkeleton, QueryStates } from '../../components/query-states';
import { useSnackbar } from '../../components/snackbar';
import { ApiError } from '../../lib/api-client';
import { issueText } from '../../lib/contract-resolver';
import { codeText, errorText } from '../../lib/error-text';
import { paths } from '../../lib/paths';
import { useProjectAccess, useProjectId } from '../../lib/project-access';
import { projectQueries } from '../../lib/project-queries';
import { useSaveWorkflow, useStartRun, workflowQuery, workflowsQuery } from './api/workflows-api';
import * as d from './components/draft';
import { EdgeList, NodeList } from './components/graph-lists';
import { NodePanel } from './components/node-panel';
import { RunsTable } from './components/runs-table';
import { WorkflowCanvas } from './components/workflow-canvas';

/** A refusal of the draft: its text, the node at fault (highlighted) and whether it is about the name. */
interface Problem {
  text: string;
  node: string | null;
  name?: boolean;
}

/** The first thing wrong with the body, checked as the server will: the graph first (naming its node), then every field. */
function draftProblem(input: WorkflowInput): Problem | null {
  const graph = workflowGraphProblem(input);
  if (graph) return { text: codeText({ code: graph.code, node: graph.node }) ?? graph.message, node: graph.node };
  const r = workflowInputSchema.safeParse(input);
  if (r.success) return null;
  const issue = r.error.issues[0]!;
  const [head, index] = issue.path;
  const node =
    head === 'nodes' && typeof index === 'number'
      ? (input.nodes[index]?.id ?? null)
      : ((issueCode(issue)?.node as string | undefined) ?? null);
  return { text: issueText(issue), node, name: head === 'name' };
}

/** /project/{id}/workflows/{wid} (and /new): the graph editor, with the workflow's runs below once saved. */
export function WorkflowEditorPage() {
  const projectId = useProjectId();
  const param = useParams().id ?? 'new';
  const id = param === 'new' ? null : Number(param);
  const query = useQuery({ ...workflowQuery(projectId, id ?? 0), enabled: id !== null });
  if (id !== null && !query.data) return <QueryStates query={query} loading={<PageSkeleton />} />;
  // A new key per workflow: the editor's working copy starts from what was loaded, once.
  return (
    <Editor
      key={id ?? 'new'}
      projectId={projectId}
      id={id}
      initial={query.data ? d.draftOf(query.data) : d.emptyDraft()}
    />
  );
}

function Editor({ projectId, id, initial }: { projectId: number; id: number | null; initial: d.Draft }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const snackbar = useSnackbar();
  // Workflows are not managed by `gantry apply`: editable in a project managed by code too.
  const { roleCanManage: canManage, canRun } = useProjectAccess(projectId);
  const templates = useQuery(projectQueries.templates(projectId)).data ?? [];
  const workflows = (useQuery(workflowsQuery(projectId)).data ?? []).filter((w) => w.id !== id);
  const team = useQuery(projectQueries.team(projectId)).data ?? [];
  // The working copy lives in this component: a session that ends meanwhile is recovered over the
  // page (the sign-in-again dialog), and the save call is sent again, so nothing typed is lost.
  const [draft, setDraft] = useState<d.Draft>(initial);
  const [dirty, setDirty] = useState(false);
  const [selected, setSelected] = useState<string | null>(initial.nodes[0]?.id ?? null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const save = useSaveWorkflow(projectId, id);
  const start = useStartRun(projectId);

  const edit = (next: d.Draft) => {
    setDraft(next);
    setDirty(true);
  };
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  // What a node runs, for the canvas and the lists (read afresh each render: the names may change).
  const detail = (nodeId: string) => {
    const n = draft.nodes.find((x) => x.id === nodeId);
    if (!n) return '';
    if (n.type === 'template') return templates.find((x) => x.id === n.template_id)?.name ?? '';
    if (n.type === 'workflow') return workflows.find((x) => x.id === n.workflow_id)?.name ?? '';
    const a = n.approvers;
    const who = [
      ...(a?.users ?? []).map((u) => team.find((m) => m.id === u)?.name ?? `#${u}`),
      ...(a?.roles ?? []).map((r) => t(`roles.${r}`)),
      ...(a?.groups ?? []),
    ];
    return who.join(', ');
  };

  const onSave = () => {
    const input = d.toInput(draft);
    const found = draftProblem(input);
    setProblem(found);
    if (found) {
      if (found.node) setSelected(found.node);
      return;
    }
    save.mutate(input, {
      onSuccess: (savedId) => {
        setDirty(false);
        snackbar.success(t('workflows.saved'));
        if (id === null) void navigate(paths.workflow(projectId, savedId), { replace: true });
      },
      onError: (e) => {
        const node = e instanceof ApiError && typeof e.body?.node === 'string' ? e.body.node : null;
        setProblem({ text: errorText(e), node, name: e instanceof ApiError && e.body?.field === 'name' });
        if (node) setSelected(node);
      },
    });
  };

  const onRun = () => {
    if (id === null) return;
    start.mutate(id, {
      onSuccess: (run) => void navigate(paths.workflowRun(projectId, id, run.id)),
      onError: (e) => snackbar.error(errorText(e)),
    });
  };

  const node = draft.nodes.find((n) => n.id === selected) ?? null;
  const problemNode = problem?.node ?? null;
  return (
    <Box>
      <PageHeader
        title={id === null ? t('workflows.newTitle') : draft.name || t('workflows.title')}
        actions={
          <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
            <Button component={Link} to={paths.workflows(projectId)} startIcon={<ArrowBackIcon />}>
              {t('workflows.back')}
            </Button>
            {id !== null && canRun ? (
              <Button
                variant="outlined"
                startIcon={<PlayIcon />}
                onClick={onRun}
                disabled={dirty || start.isPending}
                title={dirty ? t('workflows.saveBeforeRun') : undefined}
              >
                {t('workflows.runAction')}
              </Button>
            ) : null}
            {canManage ? (
              <Button variant="contained" startIcon={<SaveIcon />} onClick={onSave} disabled={save.isPending}>
                {t('common.save')}
              </Button>
            ) : null}
          </Stack>
        }
      />
      {problem ? (
        <Alert severity="error" role="alert" sx={{ mb: 2, overflowWrap: 'anywhere' }} data-testid="workflow-problem">
          {problem.text}
        </Alert>
      ) : null}
      {dirty ? (
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }} role="status">
          {t('workflows.unsaved')}
        </Typography>
      ) : null}
      <Stack direction={{ xs: 'column', sm: 'row' }} sx={{ gap: 2, mb: 2 }}>
        <TextField
          label={t('fieldLabels.name')}
          required
          size="small"
          value={draft.name}
          error={!!problem?.name}
          onChange={(e) => edit({ ...draft, name: e.target.value })}
          sx={{ flex: 1 }}
        />
        <TextField
          label={t('fieldLabels.description')}
          size="small"
          value={draft.description}
          onChange={(e) => edit({ ...draft, description: e.target.value })}
          sx={{ flex: 2 }}
        />
      </Stack>
      <Box
        sx={{
          display: 'grid',
          gap: 2,
          gridTemplateColumns: { xs: 'minmax(0, 1fr)', md: 'minmax(0, 3fr) minmax(300px, 2fr)' },
          alignItems: 'start',
        }}
      >
        <Box sx={{ minWidth: 0 }}>
          <WorkflowCanvas
            draft={draft}
            detail={detail}
            selected={selected}
            problemNode={problemNode}
            readOnly={!canManage}
            onSelect={setSelected}
            onMove={(nodeId, position) =>
              edit(d.updateNode(draft, nodeId, { position: { x: Math.round(position.x), y: Math.round(position.y) } }))
            }
            onConnect={(from, to) => edit(d.addEdge(draft, { from, to, on: 'success' }))}
          />
          <Typography variant="caption" color="text.secondary">
            {t('workflows.canvasHelp')}
          </Typography>
        </Box>
        <Stack spacing={2} sx={{ minWidth: 0 }}>
          <Paper variant="outlined" sx={{ p: 2 }}>
            <NodeList
              draft={draft}
              selected={selected}
              problemNode={problemNode}
              detail={detail}
              onAdd={(type) => {
                const r = d.addNode(draft, type);
                edit(r.draft);
                setSelected(r.id);
              }}
              onSelect={setSelected}
              onRemove={(nodeId) => {
                edit(d.removeNode(draft, nodeId));
                if (selected === nodeId) setSelected(null);
              }}
            />
          </Paper>
          {node ? (
            <Paper variant="outlined" sx={{ p: 2 }}>
              <NodePanel
                projectId={projectId}
                draft={draft}
                node={node}
                templates={templates}
                workflows={workflows}
                problem={problemNode === node.id ? problem!.text : null}
                onChange={(patch) => edit(d.updateNode(draft, node.id, patch))}
                onRename={(to) => {
                  if (to === node.id) return;
                  edit(d.renameNode(draft, node.id, to));
                  setSelected(to);
                }}
                onJoin={(join) => edit(d.setJoin(draft, node.id, join))}
                onRemove={() => {
                  edit(d.removeNode(draft, node.id));
                  setSelected(null);
                }}
              />
            </Paper>
          ) : null}
          <Paper variant="outlined" sx={{ p: 2 }}>
            <EdgeList
              draft={draft}
              onAdd={(edge) => edit(d.addEdge(draft, edge))}
              onCondition={(i, on) => edit(d.setEdgeCondition(draft, i, on))}
              onRemove={(i) => edit(d.removeEdge(draft, i))}
            />
          </Paper>
        </Stack>
      </Box>
      {id !== null ? (
        <Box component="section" aria-labelledby="wf-runs-title" sx={{ mt: 3 }}>
          <Typography id="wf-runs-title" variant="h6" component="h2" sx={{ mb: 1 }}>
            {t('workflows.runs')}
          </Typography>
          <RunsTable projectId={projectId} workflowId={id} />
        </Box>
      ) : null}
    </Box>
  );
}
