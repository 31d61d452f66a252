import CheckCircleOutlineIcon from '@mui/icons-material/CheckCircleOutlined';
import ErrorOutlineIcon from '@mui/icons-material/ErrorOutlineOutlined';
import HourglassEmptyIcon from '@mui/icons-material/HourglassEmpty';
import { Box, Chip, Paper, Stack, Typography } from '@mui/material';
import type { AuditExportDestination } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useId, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../../lib/format';
import { auditExportQuery } from '../api/audit-export-api';

/** A destination's state in one word: failing (retrying), not delivered yet, or up to date. */
function DestinationState({ d }: { d: AuditExportDestination }) {
  const { t } = useTranslation();
  if (d.attempts > 0)
    return <Chip size="small" icon={<ErrorOutlineIcon color="error" />} label={t('audit.export.retrying')} />;
  if (d.pending > 0)
    return <Chip size="small" icon={<HourglassEmptyIcon color="action" />} label={t('audit.export.sending')} />;
  return <Chip size="small" icon={<CheckCircleOutlineIcon color="success" />} label={t('audit.export.upToDate')} />;
}

/** One label/value pair of a destination's facts. */
function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Box sx={{ display: 'contents' }}>
      <Typography component="dt" variant="body2" color="text.secondary">
        {label}
      </Typography>
      <Typography component="dd" variant="body2" sx={{ m: 0, overflowWrap: 'anywhere' }}>
        {children}
      </Typography>
    </Box>
  );
}

/**
 * The Audit page's panel (admins) on export to a SIEM: each configured destination (file, syslog,
 * webhook), where it goes, what waits, the last delivery and the last error. Destinations are
 * set on the server (GANTRY_AUDIT_EXPORT_*), so the panel only reports.
 */
export function AuditExportPanel() {
  const { t } = useTranslation();
  const titleId = useId();
  const query = useQuery(auditExportQuery());
  if (!query.data) return null;
  const { destinations } = query.data;
  return (
    <Paper component="section" variant="outlined" aria-labelledby={titleId} sx={{ p: 2, mb: 2 }}>
      <Typography id={titleId} variant="subtitle1" component="h2" sx={{ fontWeight: 600, mb: 1 }}>
        {t('audit.export.title')}
      </Typography>
      {destinations.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          {t('audit.export.off')}
        </Typography>
      ) : (
        <Stack spacing={2}>
          {destinations.map((d) => (
            <Box key={d.key} component="article" aria-label={t(`audit.export.kinds.${d.kind}`)}>
              <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 1, mb: 1 }}>
                <Typography variant="body2" component="h3" sx={{ fontWeight: 600 }}>
                  {t(`audit.export.kinds.${d.kind}`)}
                </Typography>
                <DestinationState d={d} />
              </Stack>
              <Box
                component="dl"
                sx={{
                  display: 'grid',
                  gridTemplateColumns: 'minmax(7rem, max-content) 1fr',
                  columnGap: 2,
                  rowGap: 0.5,
                  m: 0,
                }}
              >
                <Fact label={t('audit.export.target')}>
                  <Box component="span" sx={{ fontFamily: 'monospace' }}>
                    {d.target}
                  </Box>
                </Fact>
                <Fact label={t('audit.export.format')}>{d.format}</Fact>
                <Fact label={t('audit.export.pending')}>{d.pending}</Fact>
                <Fact label={t('audit.export.lastExported')}>
                  {d.last_exported_id > 0 ? `#${d.last_exported_id}` : '—'}
                </Fact>
                <Fact label={t('audit.export.lastSuccess')}>
                  {d.last_success ? formatDateTime(d.last_success) : t('audit.export.never')}
                </Fact>
                {d.not_exported > 0 ? <Fact label={t('audit.export.notExported')}>{d.not_exported}</Fact> : null}
                {d.last_error ? (
                  <Fact label={t('audit.export.lastError')}>
                    {d.last_error_time ? `${formatDateTime(d.last_error_time)}: ` : ''}
                    {d.last_error}
                  </Fact>
                ) : null}
              </Box>
            </Box>
          ))}
        </Stack>
      )}
    </Paper>
  );
}
