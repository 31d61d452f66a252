import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import LinkIcon from '@mui/icons-material/LinkOutlined';
import { Box, IconButton, List, ListItem, Paper, Tooltip, Typography } from '@mui/material';
import type { IntegrationAlias } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { useSnackbar } from '../../../components/snackbar';
import { errorText } from '../../../lib/error-text';
import { aliasHref, integrationQueries, useAliasMutations } from '../api/integrations-api';
import { Section } from './section';

export interface AliasesPanelProps {
  projectId: number;
  /** The integration whose aliases are listed; null for the project-level aliases. */
  integrationId: number | null;
  canUpdate: boolean;
  title: string;
  /** A line under the title saying what these addresses reach. */
  hint: string;
}

/**
 * The webhook addresses of an integration (or of the project): each with copy and delete, plus
 * "Add alias". Shown only to those who may update the project: an alias is where anyone can start
 * tasks, so the server does not list aliases to other members.
 */
export function AliasesPanel({ projectId, integrationId, canUpdate, title, hint }: AliasesPanelProps) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const aliases = useQuery({ ...integrationQueries.aliases(projectId, integrationId), enabled: canUpdate });
  const m = useAliasMutations(projectId, integrationId);
  const [removing, setRemoving] = useState<IntegrationAlias | null>(null);
  const copy = async (url: string) => {
    try {
      await navigator.clipboard.writeText(url);
      snackbar.success(t('integrations.aliasCopied'));
    } catch (e) {
      snackbar.error(t('integrations.copyFailed', { message: (e as Error).message }));
    }
  };
  const remove = async () => {
    if (!removing) return;
    await m.remove.mutateAsync(removing.id).catch((e: unknown) => snackbar.error(errorText(e)));
    setRemoving(null);
  };
  const rows = aliases.data ?? [];
  const add = () => m.add.mutate(undefined, { onError: (e) => snackbar.error(errorText(e)) });
  if (!canUpdate) return null;
  return (
    <Section
      title={title}
      hint={hint}
      addLabel={t('integrations.addAlias')}
      onAdd={canUpdate ? add : undefined}
      busy={m.add.isPending}
    >
      {aliases.isSuccess && rows.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          {t('integrations.noAliases')}
        </Typography>
      ) : null}
      {aliases.isError ? (
        <Typography variant="body2" color="error">
          {errorText(aliases.error)}
        </Typography>
      ) : null}
      {rows.length ? (
        <Paper variant="outlined">
          <List dense disablePadding>
            {rows.map((a, i) => {
              const href = aliasHref(a);
              return (
                <ListItem
                  key={a.id}
                  data-testid="alias-row"
                  divider={i < rows.length - 1}
                  secondaryAction={
                    <Box sx={{ whiteSpace: 'nowrap' }}>
                      <Tooltip title={t('integrations.copyUrl')}>
                        <IconButton
                          size="small"
                          aria-label={t('integrations.copyUrlOf', { url: href })}
                          onClick={() => void copy(href)}
                        >
                          <ContentCopyIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                      {canUpdate ? (
                        <Tooltip title={t('common.delete')}>
                          <IconButton
                            size="small"
                            aria-label={t('integrations.deleteAliasOf', { url: href })}
                            onClick={() => setRemoving(a)}
                          >
                            <DeleteIcon fontSize="small" />
                          </IconButton>
                        </Tooltip>
                      ) : null}
                    </Box>
                  }
                  sx={{ pr: canUpdate ? 11 : 7 }}
                >
                  <LinkIcon fontSize="small" color="action" sx={{ mr: 1.5, flexShrink: 0 }} />
                  <Typography
                    component="code"
                    variant="body2"
                    data-testid="alias-url"
                    sx={{ fontFamily: 'monospace', wordBreak: 'break-all', py: 0.5 }}
                  >
                    {href}
                  </Typography>
                </ListItem>
              );
            })}
          </List>
        </Paper>
      ) : null}
      <ConfirmDialog
        open={!!removing}
        title={t('common.confirmDeleteTitle', { object: t('integrations.aliasObject') })}
        text={t('common.confirmDeleteText', { name: removing ? aliasHref(removing) : '' })}
        busy={m.remove.isPending}
        onConfirm={() => void remove()}
        onClose={() => setRemoving(null)}
      />
    </Section>
  );
}
