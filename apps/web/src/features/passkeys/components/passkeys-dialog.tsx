import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import EditIcon from '@mui/icons-material/EditOutlined';
import {
  Alert,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  IconButton,
  List,
  ListItem,
  ListItemText,
  Stack,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import { PASSKEY_NAME_MAX, type Passkey } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { QueryStates } from '../../../components/query-states';
import { useSnackbar } from '../../../components/snackbar';
import { formatDateTime } from '../../../lib/format';
import { passkeysQuery, useRemovePasskey, useRenamePasskey } from '../api/passkeys-api';
import { AddPasskeyForm } from './add-passkey-form';
import { passkeyErrorText } from './passkey-error';

/**
 * One's own passkeys: add one (named, made by the browser's authenticator), rename, remove (with
 * the current password or another passkey's answer: an open session alone is not enough).
 */
export function PasskeysDialog({ hasPassword, onClose }: { hasPassword: boolean; onClose(): void }) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const list = useQuery(passkeysQuery);
  const [renaming, setRenaming] = useState<Passkey | null>(null);
  const [removing, setRemoving] = useState<Passkey | null>(null);

  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{t('passkeys.title')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2}>
          <DialogContentText>{t('passkeys.intro')}</DialogContentText>
          <QueryStates query={list} loading={null}>
            {list.data === undefined ? null : list.data.length === 0 ? (
              <Typography variant="body2" color="text.secondary">
                {t('passkeys.empty')}
              </Typography>
            ) : (
              <List dense aria-label={t('passkeys.title')}>
                {list.data.map((p) => (
                  <ListItem
                    key={p.id}
                    disableGutters
                    secondaryAction={
                      <Stack direction="row" role="group" aria-label={t('passkeys.actions', { name: p.name })}>
                        <Tooltip title={t('passkeys.rename')}>
                          <IconButton aria-label={t('passkeys.rename')} onClick={() => setRenaming(p)}>
                            <EditIcon fontSize="small" />
                          </IconButton>
                        </Tooltip>
                        <Tooltip title={t('passkeys.remove')}>
                          <IconButton aria-label={t('passkeys.remove')} onClick={() => setRemoving(p)}>
                            <DeleteIcon fontSize="small" />
                          </IconButton>
                        </Tooltip>
                      </Stack>
                    }
                  >
                    <ListItemText
                      primary={p.name}
                      secondary={`${t('passkeys.created', { date: formatDateTime(p.created) })} · ${
                        p.last_used
                          ? t('passkeys.lastUsed', { date: formatDateTime(p.last_used) })
                          : t('passkeys.neverUsed')
                      }`}
                      sx={{ pr: 10, overflowWrap: 'anywhere' }}
                    />
                  </ListItem>
                ))}
              </List>
            )}
          </QueryStates>
          <AddPasskeyForm onAdded={() => snackbar.success(t('passkeys.added'))} />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('passkeys.close')}</Button>
      </DialogActions>
      {renaming ? <RenameDialog passkey={renaming} onClose={() => setRenaming(null)} /> : null}
      {removing ? (
        <RemoveDialog passkey={removing} hasPassword={hasPassword} onClose={() => setRemoving(null)} />
      ) : null}
    </Dialog>
  );
}

function RenameDialog({ passkey, onClose }: { passkey: Passkey; onClose(): void }) {
  const { t } = useTranslation();
  const rename = useRenamePasskey();
  const [name, setName] = useState(passkey.name);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return;
    rename.mutate({ id: passkey.id, name: name.trim() }, { onSuccess: onClose });
  };
  return (
    <Dialog open onClose={onClose} maxWidth="xs" fullWidth>
      <form onSubmit={submit} noValidate>
        <DialogTitle>{t('passkeys.renameTitle')}</DialogTitle>
        <DialogContent>
          {rename.error ? (
            <Alert severity="error" role="alert" sx={{ mb: 2 }}>
              {passkeyErrorText(rename.error, t)}
            </Alert>
          ) : null}
          <TextField
            label={t('passkeys.name')}
            value={name}
            autoFocus
            fullWidth
            required
            margin="dense"
            onChange={(e) => setName(e.target.value)}
            slotProps={{ htmlInput: { maxLength: PASSKEY_NAME_MAX } }}
          />
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>{t('passkeys.cancel')}</Button>
          <Button type="submit" variant="contained" disabled={rename.isPending || !name.trim()}>
            {t('passkeys.save')}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}

/** Removing asks for proof: the current password (when the user has one here) or a passkey's answer. */
function RemoveDialog({ passkey, hasPassword, onClose }: { passkey: Passkey; hasPassword: boolean; onClose(): void }) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const remove = useRemovePasskey();
  const [password, setPassword] = useState('');
  const done = () => {
    snackbar.success(t('passkeys.removed'));
    onClose();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!password) return;
    remove.mutate({ id: passkey.id, proof: { password } }, { onSuccess: done });
  };
  return (
    <Dialog open onClose={onClose} maxWidth="xs" fullWidth>
      <form onSubmit={submit} noValidate>
        <DialogTitle>{t('passkeys.removeTitle', { name: passkey.name })}</DialogTitle>
        <DialogContent>
          <Stack spacing={2}>
            {remove.error ? (
              <Alert severity="error" role="alert">
                {passkeyErrorText(remove.error, t)}
              </Alert>
            ) : null}
            <DialogContentText>{t('passkeys.removeText')}</DialogContentText>
            {hasPassword ? (
              <TextField
                label={t('passkeys.currentPassword')}
                type="password"
                autoComplete="current-password"
                value={password}
                autoFocus
                fullWidth
                onChange={(e) => setPassword(e.target.value)}
              />
            ) : null}
            <Button
              variant="outlined"
              disabled={remove.isPending}
              onClick={() => remove.mutate({ id: passkey.id, proof: 'passkey' }, { onSuccess: done })}
            >
              {t('passkeys.confirmWithPasskey')}
            </Button>
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>{t('passkeys.cancel')}</Button>
          {hasPassword ? (
            <Button type="submit" variant="contained" color="error" disabled={remove.isPending || !password}>
              {t('passkeys.remove')}
            </Button>
          ) : null}
        </DialogActions>
      </form>
    </Dialog>
  );
}
