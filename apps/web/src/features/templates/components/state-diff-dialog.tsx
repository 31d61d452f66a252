import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  MenuItem,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { diffAddresses, summarizeState, type TerraformStateVersion } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/error-text';
import { formatDateTime } from '../../../lib/format';
import { stateVersionQuery } from '../api/workspaces-api';

/**
 * Which resources two state versions of a workspace hold, and what changed between them: the
 * addresses `terraform state list` would print, added and removed. Starts with the two newest.
 */
export function StateDiffDialog({
  projectId,
  inventoryId,
  versions,
  onClose,
}: {
  projectId: number;
  inventoryId: number;
  /** Newest first, as listed; at least two. */
  versions: TerraformStateVersion[];
  onClose(): void;
}) {
  const { t } = useTranslation();
  const [from, setFrom] = useState(versions[1]?.id ?? versions[0]!.id);
  const [to, setTo] = useState(versions[0]!.id);
  const a = useQuery(stateVersionQuery(projectId, inventoryId, from));
  const b = useQuery(stateVersionQuery(projectId, inventoryId, to));
  const before = a.data ? summarizeState(a.data.state) : null;
  const after = b.data ? summarizeState(b.data.state) : null;
  const diff = before && after ? diffAddresses(before.addresses, after.addresses) : null;
  const label = (v: TerraformStateVersion) =>
    t('terraformBackend.versionLabel', { id: v.id, serial: v.serial ?? '—', created: formatDateTime(v.created) });
  const picker = (name: string, value: number, onChange: (id: number) => void) => (
    <TextField
      select
      size="small"
      label={name}
      value={value}
      onChange={(e) => onChange(Number(e.target.value))}
      sx={{ flex: 1 }}
    >
      {versions.map((v) => (
        <MenuItem key={v.id} value={v.id}>
          {label(v)}
        </MenuItem>
      ))}
    </TextField>
  );
  const error = a.error ?? b.error;
  return (
    <Dialog open onClose={onClose} maxWidth="md" fullWidth>
      <DialogTitle>{t('terraformBackend.compareTitle')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            {picker(t('terraformBackend.from'), from, setFrom)}
            {picker(t('terraformBackend.to'), to, setTo)}
          </Stack>
          {error ? <Alert severity="error">{errorText(error)}</Alert> : null}
          {(a.data && !before) || (b.data && !after) ? (
            <Alert severity="warning">{t('terraformBackend.unreadable')}</Alert>
          ) : null}
          {diff ? (
            <Box data-testid="state-diff">
              <Typography variant="body2" sx={{ mb: 1 }}>
                {t('terraformBackend.diffSummary', {
                  added: diff.added.length,
                  removed: diff.removed.length,
                  kept: diff.kept.length,
                })}
              </Typography>
              {diff.added.length === 0 && diff.removed.length === 0 ? (
                <Alert severity="info">{t('terraformBackend.sameResources')}</Alert>
              ) : null}
              <Box
                component="pre"
                sx={{ m: 0, p: 1.5, borderRadius: 1, bgcolor: 'action.hover', fontFamily: 'monospace', fontSize: 13 }}
              >
                {diff.removed.map((r) => (
                  <Box key={`-${r}`} component="span" sx={{ display: 'block', color: 'error.main' }}>
                    - {r}
                  </Box>
                ))}
                {diff.added.map((r) => (
                  <Box key={`+${r}`} component="span" sx={{ display: 'block', color: 'success.main' }}>
                    + {r}
                  </Box>
                ))}
                {diff.kept.map((r) => (
                  <Box key={`=${r}`} component="span" sx={{ display: 'block', color: 'text.secondary' }}>
                    {'  '}
                    {r}
                  </Box>
                ))}
              </Box>
            </Box>
          ) : null}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}
