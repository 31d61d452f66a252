import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import { Box, Button, Chip, IconButton, Typography } from '@mui/material';
import type { ApiToken } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { PagedTable, type Column } from '../../components/paged-table';
import { useSnackbar } from '../../components/snackbar';
import { errorText } from '../../lib/error-text';
import { formatDateTime } from '../../lib/format';
import { tokensQuery, useDeleteToken } from './api/tokens-api';
import { CreateTokenDialog } from './components/create-token-dialog';
import { MASK, NewTokenDialog } from './components/new-token-dialog';
import { CopyButton, RevealButton } from './components/token-buttons';

/**
 * /tokens: personal API tokens, paged at 20; a new token gets a lifetime, and its value is shown
 * once. The list knows only each token's public id: masked, with reveal and copy. Delete is the one
 * verb: deleting an active token expires it (it stays listed), deleting an expired one removes it.
 */
export function TokensPage() {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const query = useQuery(tokensQuery);
  const tokens = query.data ?? [];
  const remove = useDeleteToken();
  const [revealed, setRevealed] = useState<Set<string>>(new Set());
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<ApiToken | null>(null);
  const doDelete = async (tok: ApiToken) => {
    setDeleting(null);
    await remove.mutateAsync(tok.id).catch((e: unknown) => snackbar.error(errorText(e)));
  };
  const toggle = (id: string) =>
    setRevealed((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });

  const columns: Column<ApiToken>[] = [
    {
      key: 'token',
      header: t('tokens.token'),
      render: (tok) => (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
          <Typography component="code" sx={{ fontFamily: 'monospace', fontSize: 13 }} data-testid="token-id">
            {revealed.has(tok.id) ? `${tok.token_id}${MASK.slice(tok.token_id.length)}` : MASK}
          </Typography>
          <RevealButton size="small" shown={revealed.has(tok.id)} onToggle={() => toggle(tok.id)} showLabel={t('tokens.reveal')} hideLabel={t('tokens.hide')} />
          <CopyButton size="small" text={tok.token_id} label={t('tokens.copyId')} copied={t('tokens.idCopied')} />
        </Box>
      ),
    },
    { key: 'created', header: t('tokens.created'), render: (tok) => formatDateTime(tok.created) },
    { key: 'expires', header: t('tokens.expires'), render: (tok) => (tok.expires ? formatDateTime(tok.expires) : t('tokens.never')) },
    {
      key: 'status',
      header: t('tokens.status'),
      render: (tok) => <Chip size="small" label={tok.expired ? t('tokens.expired') : t('tokens.active')} color={tok.expired ? 'default' : 'success'} variant="outlined" />,
    },
    {
      key: 'actions',
      header: '',
      align: 'right',
      render: (tok) => (
        <IconButton size="small" aria-label={t('tokens.delete', { id: tok.token_id })} onClick={() => setDeleting(tok)}>
          <DeleteIcon fontSize="small" />
        </IconButton>
      ),
    },
  ];

  return (
    <Box>
      <PageHeader
        title={t('tokens.title')}
        actions={
          <Button variant="contained" startIcon={<AddIcon />} onClick={() => setCreating(true)}>
            {t('tokens.new')}
          </Button>
        }
      />
      <PagedTable
        rows={tokens}
        query={query}
        empty={<EmptyState title={t('tokens.none')} hint={t('tokens.noneHint')} action={<Button variant="outlined" onClick={() => setCreating(true)}>{t('tokens.createFirst')}</Button>} />}
        columns={columns}
        rowKey={(tok) => tok.id}
        label={t('tokens.title')}
      />
      {creating ? (
        <CreateTokenDialog
          onClose={() => setCreating(false)}
          onCreated={(value) => {
            setCreating(false);
            setCreated(value);
          }}
        />
      ) : null}
      {created ? <NewTokenDialog token={created} onClose={() => setCreated(null)} /> : null}
      <ConfirmDialog
        open={!!deleting}
        title={t('common.confirmDeleteTitle', { object: t('tokens.object') })}
        text={deleting ? t(deleting.expired ? 'tokens.confirmDeleteExpired' : 'tokens.confirmDeleteActive', { id: deleting.token_id }) : ''}
        onConfirm={() => deleting && void doDelete(deleting)}
        onClose={() => setDeleting(null)}
      />
    </Box>
  );
}
