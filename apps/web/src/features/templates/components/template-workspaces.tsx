import AddIcon from '@mui/icons-material/Add';
import {
  Alert,
  Button,
  Chip,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import type { Template } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnackbar } from '../../../components/snackbar';
import { useSafeDelete } from '../../../components/use-safe-delete';
import { VisuallyHidden } from '../../../components/visually-hidden';
import { errorText } from '../../../lib/error-text';
import { projectKeys, projectQueries } from '../../../lib/project-queries';
import {
  appWorkspacesQuery,
  templateWorkspacesQuery,
  useWorkspaceAction,
  type WorkspaceAction,
} from '../api/workspaces-api';
import { AttachWorkspaceDialog, NewWorkspaceDialog } from './workspace-dialogs';
import { WorkspaceBackend } from './workspace-backend';
import { WorkspaceStates } from './workspace-states';
import { DriftBadge } from '../../terraform-plans/components/drift-badge';

/**
 * The workspaces of a terraform/tofu template (workspace inventories attached to it): default
 * marker, set default, detach, delete; and the state versions of the selected one.
 */
export function TemplateWorkspaces({
  projectId,
  template,
  canManage,
  canManageAliases,
}: {
  projectId: number;
  template: Template;
  canManage: boolean;
  /** May see and change the state backend's aliases (they answer the raw state: owners). */
  canManageAliases: boolean;
}) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const workspaces = useQuery(templateWorkspacesQuery(projectId, template.id)).data ?? [];
  const all = useQuery({ ...appWorkspacesQuery(projectId, template.app), enabled: canManage }).data ?? [];
  const keys = useQuery({ ...projectQueries.keys(projectId), enabled: canManage }).data ?? [];
  const [dialog, setDialog] = useState<'new' | 'attach' | null>(null);
  const [picked, setPicked] = useState<number | null>(null);
  const action = useWorkspaceAction(projectId, template.id);
  const del = useSafeDelete({
    projectId,
    object: t('workspaces.object'),
    baseUrl: `/project/${projectId}/inventory`,
    invalidate: projectKeys.inventories(projectId),
  });
  const selected =
    workspaces.find((w) => w.id === picked) ?? workspaces.find((w) => w.id === template.inventory_id) ?? workspaces[0];
  const run = (a: WorkspaceAction, inventoryId: number) =>
    void action.mutateAsync({ action: a, inventoryId }).catch((e: unknown) => snackbar.error(errorText(e)));

  return (
    <Stack spacing={2}>
      <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
        <Typography variant="subtitle1" sx={{ flex: 1 }}>
          {t('workspaces.title')}
        </Typography>
        {canManage ? (
          <>
            <Button startIcon={<AddIcon />} onClick={() => setDialog('attach')}>
              {t('workspaces.attach')}
            </Button>
            <Button variant="contained" startIcon={<AddIcon />} onClick={() => setDialog('new')}>
              {t('workspaces.new')}
            </Button>
          </>
        ) : null}
      </Stack>
      {workspaces.length === 0 ? (
        <Alert severity="info">{t('workspaces.empty')}</Alert>
      ) : (
        // On a phone the table scrolls sideways inside its frame, not the page.
        <TableContainer sx={{ maxWidth: 800 }}>
          <Table size="small" aria-label={t('workspaces.title')}>
            <TableHead>
              <TableRow>
                <TableCell>{t('common.name')}</TableCell>
                <TableCell>
                  <VisuallyHidden>{t('common.actions')}</VisuallyHidden>
                </TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {workspaces.map((w) => {
                const isDefault = w.id === template.inventory_id;
                return (
                  <TableRow
                    key={w.id}
                    hover
                    selected={w.id === selected?.id}
                    onClick={() => setPicked(w.id)}
                    sx={{ cursor: 'pointer' }}
                  >
                    <TableCell>
                      {w.name}{' '}
                      {isDefault ? (
                        <Chip size="small" color="primary" label={t('workspaces.default')} sx={{ ml: 1 }} />
                      ) : null}{' '}
                      {w.drift ? <DriftBadge drift={w.drift} /> : null}
                    </TableCell>
                    <TableCell align="right" onClick={(ev) => ev.stopPropagation()}>
                      {canManage && !isDefault ? (
                        <>
                          <Button size="small" onClick={() => run('set_default', w.id)}>
                            {t('workspaces.setDefault')}
                          </Button>
                          <Button size="small" onClick={() => run('detach', w.id)}>
                            {t('workspaces.detach')}
                          </Button>
                        </>
                      ) : null}
                      {canManage ? (
                        <Button size="small" color="error" onClick={() => void del.request(w)}>
                          {t('common.delete')}
                        </Button>
                      ) : null}
                    </TableCell>
                  </TableRow>
                );
              })}
            </TableBody>
          </Table>
        </TableContainer>
      )}
      {selected ? (
        <Stack spacing={3}>
          <WorkspaceBackend
            projectId={projectId}
            inventoryId={selected.id}
            canManage={canManage}
            canManageAliases={canManageAliases}
          />
          <WorkspaceStates
            projectId={projectId}
            templateId={template.id}
            inventoryId={selected.id}
            name={selected.name}
          />
        </Stack>
      ) : null}
      {dialog === 'new' ? (
        <NewWorkspaceDialog
          projectId={projectId}
          templateId={template.id}
          app={template.app}
          keys={keys}
          onClose={() => setDialog(null)}
        />
      ) : null}
      {dialog === 'attach' ? (
        <AttachWorkspaceDialog
          projectId={projectId}
          templateId={template.id}
          candidates={all.filter((w) => w.template_id === null)}
          onClose={() => setDialog(null)}
        />
      ) : null}
      {del.dialogs}
    </Stack>
  );
}
