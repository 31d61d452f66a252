import {
  Alert,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  MenuItem,
  Stack,
  Switch,
  TextField,
} from '@mui/material';
import {
  DESTINATION_FIELDS,
  ErrorCodes,
  NOTIFICATION_KINDS,
  NOTIFICATION_LIMITS,
  type NotificationDestination,
  type NotificationKind,
} from '@gantry/contracts';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../lib/api-client';
import { codeText, errorText } from '../../../lib/error-text';
import { useSaveDestination, type NotificationScope } from '../api/notifications-api';
import { initialConfig, isStored, missingOrInvalid, toConfig, type ConfigValues } from './config-values';
import { DestinationFieldInput } from './destination-field';

const FIELD_CODES: string[] = [ErrorCodes.notificationFieldRequired, ErrorCodes.notificationFieldInvalid];

/**
 * New or edit destination: name, kind (fixed once created: its secrets belong to it), the kind's
 * fields and the active switch. A refusal keeps everything typed; one about a field shows under it.
 */
export function DestinationDialog({
  scope,
  item,
  onClose,
}: {
  scope: NotificationScope;
  item: NotificationDestination | null;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const save = useSaveDestination(scope, item?.id ?? null);
  const [name, setName] = useState(item?.name ?? '');
  const [kind, setKind] = useState<NotificationKind>(item?.kind ?? 'webhook');
  const [active, setActive] = useState(item?.active ?? true);
  const [config, setConfig] = useState<ConfigValues>(() => initialConfig(item?.kind ?? 'webhook', item));
  const [checked, setChecked] = useState(false);
  const fields = DESTINATION_FIELDS[kind];
  const label = (field: string) => t(`notifications.fields.${field}`);
  const local = checked ? missingOrInvalid(kind, config, item) : {};
  const nameError = checked && !name.trim() ? t('notifications.nameRequired') : undefined;
  // The server's refusal about one field: worded with the field's label, shown under it too.
  const body = save.error instanceof ApiError ? save.error.body : null;
  // `field` is `config.<name>` for a configuration field (a payload template's unknown tag too).
  const named = typeof body?.field === 'string' && body.field.startsWith('config.') ? body.field.slice(7) : null;
  const serverField = named && fields.some((f) => f.name === named) ? named : null;
  const serverText = save.error
    ? serverField
      ? (codeText({ ...body, name: FIELD_CODES.includes(String(body?.code)) ? label(serverField) : body?.name }) ??
        errorText(save.error))
      : errorText(save.error)
    : null;
  const fieldError = (field: string) =>
    local[field]
      ? (codeText({
          code:
            local[field] === 'required' ? ErrorCodes.notificationFieldRequired : ErrorCodes.notificationFieldInvalid,
          name: label(field),
        }) ?? undefined)
      : serverField === field
        ? (serverText ?? undefined)
        : undefined;

  const submit = async (ev: FormEvent) => {
    ev.preventDefault();
    setChecked(true);
    if (!name.trim() || Object.keys(missingOrInvalid(kind, config, item)).length) return;
    const ok = await save.mutateAsync({ name: name.trim(), kind, active, config: toConfig(kind, config) }).then(
      () => true,
      () => false,
    );
    if (ok) onClose();
  };

  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{item ? t('notifications.editDestination') : t('notifications.newDestination')}</DialogTitle>
      <DialogContent>
        <Stack
          spacing={1}
          component="form"
          id="destination-form"
          noValidate
          onSubmit={(ev) => void submit(ev)}
          sx={{ pt: 1 }}
        >
          {serverText ? (
            <Alert severity="error" role="alert" sx={{ mb: 1 }}>
              {serverText}
            </Alert>
          ) : null}
          <TextField
            label={t('common.name')}
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            autoFocus
            error={!!nameError}
            helperText={nameError ?? ' '}
            slotProps={{ htmlInput: { maxLength: NOTIFICATION_LIMITS.nameMax, autoComplete: 'off' } }}
          />
          <TextField
            select
            label={t('notifications.kind')}
            value={kind}
            disabled={!!item}
            onChange={(e) => {
              const next = e.target.value as NotificationKind;
              setKind(next);
              // Fields of the same name (url, token...) keep what was typed.
              setConfig((old) => ({ ...initialConfig(next, null), ...pick(old, next) }));
            }}
            helperText={item ? t('notifications.kindFixed') : ' '}
          >
            {NOTIFICATION_KINDS.map((k) => (
              <MenuItem key={k} value={k}>
                {t(`notifications.kinds.${k}`)}
              </MenuItem>
            ))}
          </TextField>
          {fields.map((f) => (
            <DestinationFieldInput
              key={`${kind}.${f.name}`}
              kind={kind}
              field={f}
              value={config[f.name] ?? ''}
              onChange={(v) => setConfig((old) => ({ ...old, [f.name]: v }))}
              stored={isStored(f, item)}
              error={fieldError(f.name)}
            />
          ))}
          <FormControlLabel
            control={<Switch checked={active} onChange={(e) => setActive(e.target.checked)} />}
            label={t('notifications.active')}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button type="submit" form="destination-form" variant="contained" disabled={save.isPending}>
          {item ? t('common.save') : t('common.create')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** The values of `old` that are fields of `kind` too (a boolean stays a boolean only if the field is one). */
function pick(old: ConfigValues, kind: NotificationKind): ConfigValues {
  const out: ConfigValues = {};
  for (const f of DESTINATION_FIELDS[kind]) {
    const v = old[f.name];
    if (v !== undefined && typeof v === (f.type === 'boolean' ? 'boolean' : 'string')) out[f.name] = v;
  }
  return out;
}
