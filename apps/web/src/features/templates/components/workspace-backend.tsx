import AddIcon from '@mui/icons-material/Add';
import AutorenewIcon from '@mui/icons-material/Autorenew';
import CodeIcon from '@mui/icons-material/Code';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import EditIcon from '@mui/icons-material/EditOutlined';
import {
  Alert,
  Box,
  Button,
  FormControlLabel,
  IconButton,
  List,
  ListItem,
  Paper,
  Stack,
  Switch,
  Tooltip,
  Typography,
} from '@mui/material';
import { httpBackendBlock, type TerraformAlias } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { useSnackbar } from '../../../components/snackbar';
import { errorText } from '../../../lib/error-text';
import { projectQueries } from '../../../lib/project-queries';
import { aliasesQuery, backendQuery, useAliasMutations, useSetBackend } from '../api/terraform-backend-api';
import { AliasDialog } from './alias-dialog';

/**
 * A workspace's HTTP state backend on the State tab: the switch that makes its tasks keep their
 * state in Gantry (managers), and (for owners: an alias answers the raw state, as a download
 * does) its aliases, each with a copy button, edit, rotate and delete, and a ready-to-paste
 * `backend "http"` block. Passwords are never shown: they stay in the aliases' keys.
 */
export function WorkspaceBackend({
  projectId,
  inventoryId,
  canManage,
  canManageAliases,
}: {
  projectId: number;
  inventoryId: number;
  /** May turn the backend on and off (manageProjectResources). */
  canManage: boolean;
  /** May see and change aliases: the permission of a raw state download (updateProject). */
  canManageAliases: boolean;
}) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const settings = useQuery(backendQuery(projectId, inventoryId));
  const aliases = useQuery({ ...aliasesQuery(projectId, inventoryId), enabled: canManageAliases });
  const keys = useQuery({ ...projectQueries.keys(projectId), enabled: canManageAliases }).data ?? [];
  const setBackend = useSetBackend(projectId, inventoryId);
  const m = useAliasMutations(projectId, inventoryId);
  const [editing, setEditing] = useState<TerraformAlias | 'new' | null>(null);
  const [confirm, setConfirm] = useState<{ alias: TerraformAlias; action: 'rotate' | 'delete' } | null>(null);
  const [shown, setShown] = useState<string | null>(null);

  const copy = async (text: string, message: string) => {
    try {
      await navigator.clipboard.writeText(text);
      snackbar.success(message);
    } catch (e) {
      snackbar.error(t('terraformBackend.copyFailed', { message: (e as Error).message }));
    }
  };
  const loginOf = (a: TerraformAlias) => keys.find((k) => k.id === a.auth_key_id)?.login_password.login ?? '';
  const keyName = (a: TerraformAlias) => keys.find((k) => k.id === a.auth_key_id)?.name ?? t('terraformBackend.noKey');
  const rows = aliases.data ?? [];
  const blockAlias = rows.find((a) => a.id === shown) ?? rows[0];
  const confirmed = async () => {
    if (!confirm) return;
    const { alias, action } = confirm;
    await (action === 'rotate' ? m.rotate.mutateAsync(alias.id) : m.remove.mutateAsync(alias.id)).then(
      () => snackbar.success(t(action === 'rotate' ? 'terraformBackend.rotated' : 'terraformBackend.deleted')),
      (e: unknown) => snackbar.error(errorText(e)),
    );
    setConfirm(null);
  };

  return (
    <Stack spacing={1} data-testid="workspace-backend">
      <Typography variant="subtitle2">{t('terraformBackend.title')}</Typography>
      {settings.isError ? <Alert severity="error">{errorText(settings.error)}</Alert> : null}
      <FormControlLabel
        control={
          <Switch
            checked={settings.data?.enabled ?? false}
            disabled={!canManage || !settings.data || setBackend.isPending}
            onChange={(_, on) => setBackend.mutate(on, { onError: (e) => snackbar.error(errorText(e)) })}
          />
        }
        label={t('terraformBackend.enabled')}
      />
      <Typography variant="body2" color="text.secondary">
        {t('terraformBackend.hint')}
      </Typography>
      {canManage && !canManageAliases ? (
        <Typography variant="body2" color="text.secondary" data-testid="terraform-aliases-owners-only">
          {t('terraformBackend.aliasesOwnersOnly')}
        </Typography>
      ) : null}
      {canManageAliases ? (
        <>
          <Stack direction="row" sx={{ alignItems: 'center', pt: 1 }}>
            <Typography variant="subtitle2" sx={{ flex: 1 }}>
              {t('terraformBackend.aliases')}
            </Typography>
            <Button startIcon={<AddIcon />} onClick={() => setEditing('new')}>
              {t('terraformBackend.addAlias')}
            </Button>
          </Stack>
          {aliases.isError ? <Alert severity="error">{errorText(aliases.error)}</Alert> : null}
          {aliases.isSuccess && rows.length === 0 ? (
            <Typography variant="body2" color="text.secondary">
              {t('terraformBackend.noAliases')}
            </Typography>
          ) : null}
          {rows.length ? (
            <Paper variant="outlined" sx={{ maxWidth: 800 }}>
              <List dense disablePadding aria-label={t('terraformBackend.aliases')}>
                {rows.map((a, i) => (
                  <ListItem
                    key={a.id}
                    data-testid="terraform-alias"
                    divider={i < rows.length - 1}
                    sx={{ gap: 1, flexWrap: 'wrap' }}
                  >
                    <Box sx={{ flex: 1, minWidth: 240 }}>
                      <Typography
                        component="code"
                        variant="body2"
                        data-testid="terraform-alias-url"
                        sx={{ fontFamily: 'monospace', wordBreak: 'break-all' }}
                      >
                        {a.url}
                      </Typography>
                      <Typography variant="caption" color="text.secondary" component="div">
                        {t('terraformBackend.keyOf', { name: keyName(a) })}
                      </Typography>
                    </Box>
                    <Box sx={{ whiteSpace: 'nowrap' }}>
                      <Tooltip title={t('terraformBackend.copyUrl')}>
                        <IconButton
                          size="small"
                          aria-label={t('terraformBackend.copyUrl')}
                          onClick={() => void copy(a.url, t('terraformBackend.aliasCopied'))}
                        >
                          <ContentCopyIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                      <Tooltip title={t('terraformBackend.showBlock')}>
                        <IconButton
                          size="small"
                          aria-label={t('terraformBackend.showBlock')}
                          onClick={() => setShown(a.id)}
                        >
                          <CodeIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                      <Tooltip title={t('common.edit')}>
                        <IconButton
                          size="small"
                          aria-label={t('terraformBackend.editAlias')}
                          onClick={() => setEditing(a)}
                        >
                          <EditIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                      <Tooltip title={t('terraformBackend.rotate')}>
                        <IconButton
                          size="small"
                          aria-label={t('terraformBackend.rotate')}
                          onClick={() => setConfirm({ alias: a, action: 'rotate' })}
                        >
                          <AutorenewIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                      <Tooltip title={t('common.delete')}>
                        <IconButton
                          size="small"
                          aria-label={t('terraformBackend.deleteAlias')}
                          onClick={() => setConfirm({ alias: a, action: 'delete' })}
                        >
                          <DeleteIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    </Box>
                  </ListItem>
                ))}
              </List>
            </Paper>
          ) : null}
          {blockAlias ? (
            <BackendBlock
              block={httpBackendBlock(blockAlias.url, loginOf(blockAlias))}
              onCopy={(text) => void copy(text, t('terraformBackend.blockCopied'))}
            />
          ) : null}
        </>
      ) : null}
      {editing ? (
        <AliasDialog
          projectId={projectId}
          inventoryId={inventoryId}
          alias={editing === 'new' ? null : editing}
          keys={keys}
          onClose={() => setEditing(null)}
        />
      ) : null}
      <ConfirmDialog
        open={!!confirm}
        title={t(confirm?.action === 'rotate' ? 'terraformBackend.rotateTitle' : 'terraformBackend.deleteTitle')}
        text={t(confirm?.action === 'rotate' ? 'terraformBackend.rotateText' : 'terraformBackend.deleteText', {
          url: confirm?.alias.url ?? '',
        })}
        confirmLabel={confirm?.action === 'rotate' ? t('terraformBackend.rotate') : undefined}
        busy={m.rotate.isPending || m.remove.isPending}
        onConfirm={() => void confirmed()}
        onClose={() => setConfirm(null)}
      />
    </Stack>
  );
}

/** The `backend "http"` block for one alias, to paste into a configuration; the password goes by TF_HTTP_PASSWORD. */
function BackendBlock({ block, onCopy }: { block: string; onCopy(text: string): void }) {
  const { t } = useTranslation();
  return (
    <Box sx={{ maxWidth: 800 }}>
      <Stack direction="row" sx={{ alignItems: 'center' }}>
        <Typography variant="body2" color="text.secondary" sx={{ flex: 1 }}>
          {t('terraformBackend.blockHint')}
        </Typography>
        <Button size="small" startIcon={<ContentCopyIcon />} onClick={() => onCopy(block)}>
          {t('terraformBackend.copyBlock')}
        </Button>
      </Stack>
      <Box
        component="pre"
        data-testid="terraform-backend-block"
        sx={{
          m: 0,
          p: 1.5,
          borderRadius: 1,
          bgcolor: 'action.hover',
          fontFamily: 'monospace',
          fontSize: 13,
          overflowX: 'auto',
        }}
      >
        {block}
      </Box>
    </Box>
  );
}
