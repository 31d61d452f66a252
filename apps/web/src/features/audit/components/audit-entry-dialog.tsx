import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
  Box,
} from '@mui/material';
import type { AuditEntry } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../../lib/format';

/** A field's value as text: JSON for lists and objects, a dash for none. */
function show(value: unknown): string {
  if (value === undefined || value === null) return '—';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** One entry: who, when, from where, and each changed field before and after. */
export function AuditEntryDialog({
  entry,
  labels,
  onClose,
}: {
  entry: AuditEntry;
  /** The entry's action, object type and project as the page words them. */
  labels: { action: string; object: string; project: string };
  onClose(): void;
}) {
  const { t } = useTranslation();
  const fields = [...new Set([...Object.keys(entry.before ?? {}), ...Object.keys(entry.after ?? {})])];
  const facts: [string, string][] = [
    [t('audit.time'), formatDateTime(entry.time)],
    [t('audit.actor'), entry.actor ?? t('audit.system')],
    [t('audit.authKind'), t(`audit.authKinds.${entry.auth_kind}`, { defaultValue: entry.auth_kind })],
    [t('audit.address'), entry.ip ?? '—'],
    [t('audit.userAgent'), entry.user_agent ?? '—'],
    [t('audit.requestId'), entry.request_id ?? '—'],
    [t('audit.object'), `${labels.object}${entry.object_id === null ? '' : ` #${entry.object_id}`}`],
    [t('audit.project'), labels.project],
  ];
  return (
    <Dialog open onClose={onClose} maxWidth="md" fullWidth aria-labelledby="audit-entry-title">
      <DialogTitle id="audit-entry-title">
        {t('audit.detailTitle', { id: entry.id, action: labels.action })}
      </DialogTitle>
      <DialogContent>
        <Box
          component="dl"
          sx={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', columnGap: 2, rowGap: 0.5, m: 0, mb: 2 }}
        >
          {facts.map(([k, v]) => (
            <Box key={k} sx={{ display: 'contents' }}>
              <Typography component="dt" variant="body2" color="text.secondary">
                {k}
              </Typography>
              <Typography component="dd" variant="body2" sx={{ m: 0, overflowWrap: 'anywhere' }}>
                {v}
              </Typography>
            </Box>
          ))}
        </Box>
        {fields.length === 0 ? (
          <Typography variant="body2" color="text.secondary">
            {t('audit.noChanges')}
          </Typography>
        ) : (
          <Box sx={{ overflowX: 'auto' }}>
            <Table size="small" aria-label={t('audit.changes')}>
              <TableHead>
                <TableRow>
                  <TableCell sx={{ fontWeight: 600 }}>{t('audit.field')}</TableCell>
                  <TableCell sx={{ fontWeight: 600 }}>{t('audit.before')}</TableCell>
                  <TableCell sx={{ fontWeight: 600 }}>{t('audit.after')}</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {fields.map((f) => (
                  <TableRow key={f}>
                    <TableCell sx={{ fontFamily: 'monospace', overflowWrap: 'anywhere' }}>{f}</TableCell>
                    <TableCell sx={{ color: 'error.main', overflowWrap: 'anywhere' }} data-testid={`audit-before-${f}`}>
                      {show(entry.before?.[f])}
                    </TableCell>
                    <TableCell
                      sx={{ color: 'success.main', overflowWrap: 'anywhere' }}
                      data-testid={`audit-after-${f}`}
                    >
                      {show(entry.after?.[f])}
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Box>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}
