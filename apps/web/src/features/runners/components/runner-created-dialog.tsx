import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { Alert, Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, IconButton, Tab, Tabs, Tooltip, Typography } from '@mui/material';
import type { RunnerCreated } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnackbar } from '../../../components/snackbar';
import { infoQuery } from '../../../lib/session';

const VARIANTS = ['config', 'setup', 'env', 'docker'] as const;
type Variant = (typeof VARIANTS)[number];

/** The ways to start a runner with its token and key, as text to copy. */
function usage(variant: Variant, server: string, token: string): string {
  const env = [`GANTRY_RUNNER_SERVER_URL=${server}`, `GANTRY_RUNNER_TOKEN=${token}`];
  switch (variant) {
    case 'config':
      return [...env, 'GANTRY_RUNNER_PRIVATE_KEY_FILE=/etc/gantry/runner.key', 'GANTRY_RUNNER_WORK_DIR=/var/lib/gantry-runner'].join('\n');
    case 'setup':
      return [
        'sudo install -d -m 0700 /etc/gantry /var/lib/gantry-runner',
        'sudo tee /etc/gantry/runner.key > /dev/null   # paste the private key, then Ctrl-D',
        'sudo chmod 0600 /etc/gantry/runner.key',
        'sudo tee /etc/gantry/runner.env > /dev/null   # paste the config file, then Ctrl-D',
        'sudo sh -c "set -a; . /etc/gantry/runner.env; exec npx gantry runner start"',
      ].join('\n');
    case 'env':
      return [...env.map((e) => `export ${e}`), 'export GANTRY_RUNNER_PRIVATE_KEY_FILE=$PWD/runner.key', 'export GANTRY_RUNNER_WORK_DIR=$PWD/runner-data', 'npx gantry runner start'].join('\n');
    case 'docker':
      return [
        'docker run -d --name gantry-runner \\',
        ...env.map((e) => `  -e ${e} \\`),
        '  -e GANTRY_RUNNER_PRIVATE_KEY_FILE=/etc/gantry/runner.key \\',
        '  -e GANTRY_RUNNER_WORK_DIR=/var/lib/gantry-runner \\',
        '  -v $PWD/runner.key:/etc/gantry/runner.key:ro \\',
        '  <your-gantry-image> runner start',
      ].join('\n');
  }
}

function CopyBlock({ text, label, testId, onCopy }: { text: string; label: string; testId: string; onCopy(): void }) {
  return (
    <Box sx={{ display: 'flex', alignItems: 'flex-start', gap: 1, p: 1.5, bgcolor: 'action.hover', borderRadius: 1 }}>
      <Typography component="pre" sx={{ fontFamily: 'monospace', fontSize: 12, whiteSpace: 'pre-wrap', wordBreak: 'break-all', flexGrow: 1, m: 0, maxHeight: 180, overflow: 'auto' }} data-testid={testId}>
        {text}
      </Typography>
      <Tooltip title={label}>
        <IconButton aria-label={label} onClick={onCopy} size="small">
          <ContentCopyIcon fontSize="small" />
        </IconButton>
      </Tooltip>
    </Box>
  );
}

/** Shown once after creation: the token and private key exist nowhere else afterwards. */
export function RunnerCreatedDialog({ runner, onClose }: { runner: RunnerCreated; onClose(): void }) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const info = useQuery(infoQuery).data;
  const [variant, setVariant] = useState<Variant>('config');
  const server = info?.web_host || window.location.origin;
  const copy = async (text: string, done: string) => {
    try {
      await navigator.clipboard.writeText(text);
      snackbar.success(done);
    } catch (e) {
      snackbar.error(t('runners.copyFailed', { reason: (e as Error).message }));
    }
  };
  return (
    <Dialog open onClose={onClose} maxWidth="md" fullWidth>
      <DialogTitle>{t('runners.createdTitle', { name: runner.name })}</DialogTitle>
      <DialogContent>
        <Alert severity="warning" sx={{ mb: 2 }}>
          {t('runners.createdText')}
        </Alert>
        <Typography variant="subtitle2" sx={{ mb: 0.5 }}>
          {t('runners.token')}
        </Typography>
        <CopyBlock text={runner.token} label={t('runners.copyToken')} testId="runner-token" onCopy={() => void copy(runner.token, t('runners.tokenCopied'))} />
        <Typography variant="subtitle2" sx={{ mt: 2, mb: 0.5 }}>
          {t('runners.privateKey')}
        </Typography>
        <CopyBlock text={runner.private_key} label={t('runners.copyPrivateKey')} testId="runner-private-key" onCopy={() => void copy(runner.private_key, t('runners.privateKeyCopied'))} />
        <Typography variant="subtitle2" sx={{ mt: 2 }}>
          {t('runners.usage')}
        </Typography>
        <Tabs value={variant} onChange={(_e, v: Variant) => setVariant(v)} sx={{ mb: 1 }}>
          {VARIANTS.map((v) => (
            <Tab key={v} value={v} label={t(`runners.usage_${v}`)} />
          ))}
        </Tabs>
        <CopyBlock text={usage(variant, server, runner.token)} label={t('runners.copyCommand')} testId="runner-usage" onCopy={() => void copy(usage(variant, server, runner.token), t('runners.commandCopied'))} />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} variant="contained">
          {t('common.close')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
