import VisibilityIcon from '@mui/icons-material/VisibilityOutlined';
import VisibilityOffIcon from '@mui/icons-material/VisibilityOffOutlined';
import { Box, Button, FormControlLabel, IconButton, InputAdornment, MenuItem, Switch, TextField } from '@mui/material';
import {
  NOTIFICATION_LIMITS,
  PAGERDUTY_SEVERITIES,
  type DestinationField,
  type NotificationKind,
} from '@gantry/contracts';
import { useState, type ChangeEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { randomSecret } from './config-values';

interface Props {
  kind: NotificationKind;
  field: DestinationField;
  value: string | boolean;
  onChange(value: string | boolean): void;
  /** The secret already holds a value on the server: the input may stay empty. */
  stored: boolean;
  error?: string;
}

/** Help lines some fields have, by `<kind>.<field>` first, then by field name. */
const HELP = new Set([
  'email.to',
  'email.host',
  'ntfy.url',
  'telegram.api_url',
  'pagerduty.api_url',
  'webhook.secret',
  'webhook.payload_template',
  'webhook.content_type',
  'priority',
]);

/**
 * One configuration field of a destination, drawn by its type: a switch, a number, a comma separated
 * list of emails, a payload template (multiline, monospace), PagerDuty's severity as a choice; secrets
 * are password inputs that can be shown, and never show what is stored.
 */
export function DestinationFieldInput({ kind, field: f, value, onChange, stored, error }: Props) {
  const { t } = useTranslation();
  const [shown, setShown] = useState(false);
  const label = t(`notifications.fields.${f.name}`);
  if (f.type === 'boolean')
    return (
      <FormControlLabel
        control={<Switch checked={value === true} onChange={(e) => onChange(e.target.checked)} />}
        label={label}
      />
    );
  const helpKey = HELP.has(`${kind}.${f.name}`) ? `${kind}.${f.name}` : HELP.has(f.name) ? f.name : null;
  const help = stored
    ? t('notifications.storedSecret')
    : helpKey
      ? t(`notifications.fieldHelp.${helpKey}`, {
          status: '{{ task.status }}',
          json: '{{ json task }}',
          min: NOTIFICATION_LIMITS.secretMin,
        })
      : ' ';
  const common = {
    label,
    value: typeof value === 'string' ? value : '',
    onChange: (e: ChangeEvent<HTMLInputElement>) => onChange(e.target.value),
    required: f.required && !stored,
    error: !!error,
    helperText: error ?? help,
    fullWidth: true,
    name: f.name,
  };
  if (kind === 'pagerduty' && f.name === 'severity')
    return (
      <TextField {...common} select slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}>
        <MenuItem value="">{t('notifications.defaultChoice')}</MenuItem>
        {PAGERDUTY_SEVERITIES.map((s) => (
          <MenuItem key={s} value={s}>
            {t(`notifications.severities.${s}`)}
          </MenuItem>
        ))}
      </TextField>
    );
  if (f.type === 'multiline')
    return (
      <TextField
        {...common}
        multiline
        minRows={4}
        slotProps={{ htmlInput: { spellCheck: false, style: { fontFamily: 'monospace' } } }}
      />
    );
  const input = (
    <TextField
      {...common}
      type={f.secret && !shown ? 'password' : f.type === 'url' ? 'url' : 'text'}
      slotProps={{
        htmlInput: {
          autoComplete: f.secret ? 'new-password' : 'off',
          inputMode: f.type === 'number' ? 'numeric' : f.type === 'emails' ? 'email' : undefined,
          spellCheck: false,
        },
        input: f.secret
          ? {
              endAdornment: (
                <InputAdornment position="end">
                  <IconButton
                    edge="end"
                    onClick={() => setShown((x) => !x)}
                    aria-label={t(shown ? 'notifications.hideValue' : 'notifications.showValue', { field: label })}
                  >
                    {shown ? <VisibilityOffIcon /> : <VisibilityIcon />}
                  </IconButton>
                </InputAdornment>
              ),
            }
          : undefined,
      }}
    />
  );
  if (kind !== 'webhook' || f.name !== 'secret') return input;
  return (
    // Beside the field where there is room; under it on a phone, so the field's label stays whole.
    <Box
      sx={{
        display: 'flex',
        flexDirection: { xs: 'column', sm: 'row' },
        gap: { xs: 0, sm: 1 },
        alignItems: 'flex-start',
      }}
    >
      <Box sx={{ flexGrow: 1, minWidth: 0, alignSelf: 'stretch' }}>{input}</Box>
      <Button
        variant="outlined"
        sx={{ mt: { xs: 0, sm: 1 }, mb: { xs: 1, sm: 0 }, flexShrink: 0 }}
        onClick={() => {
          onChange(randomSecret());
          // Shown, so that it can be copied to the receiver that checks the signature.
          setShown(true);
        }}
      >
        {t('notifications.generate')}
      </Button>
    </Box>
  );
}
