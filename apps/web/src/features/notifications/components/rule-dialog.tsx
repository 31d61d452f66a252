import {
  Button,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControl,
  FormControlLabel,
  FormGroup,
  FormHelperText,
  FormLabel,
  ListSubheader,
  MenuItem,
  Stack,
  Switch,
  TextField,
} from '@mui/material';
import {
  NOTIFICATION_EVENTS,
  NOTIFICATION_LIMITS,
  type NotificationDestination,
  type NotificationEventName,
  type NotificationRule,
  type NotificationRuleInput,
} from '@gantry/contracts';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { FormError } from '../../../components/form-error';
import { useSaveRule, type NotificationScope } from '../api/notifications-api';
import { parseScopeValue, scopeValue, useScopeChoices } from './scope-choices';

/** What the server uses when a rule leaves them empty (contracts: long_running_minutes, digest_hour). */
const DEFAULT_LONG_RUNNING_MINUTES = 30;
const DEFAULT_DIGEST_HOUR = 8;

interface Values {
  destination_id: number | '';
  events: NotificationEventName[];
  scope: string;
  only_schedules: boolean;
  branch: string;
  exclude_task_runners: boolean;
  long_running_minutes: string;
  digest_hour: string;
}

const initial = (r: NotificationRule | null, destinations: NotificationDestination[]): Values => ({
  destination_id: r?.destination_id ?? (destinations.length === 1 ? destinations[0]!.id : ''),
  events: r?.events ?? ['task_failed'],
  scope: scopeValue(r),
  only_schedules: r?.only_schedules ?? false,
  branch: r?.branch ?? '',
  exclude_task_runners: r?.exclude_task_runners ?? false,
  long_running_minutes: String(r?.long_running_minutes ?? DEFAULT_LONG_RUNNING_MINUTES),
  digest_hour: String(r?.digest_hour ?? DEFAULT_DIGEST_HOUR),
});

/** A whole number within bounds, or undefined. */
function whole(text: string, min: number, max: number): number | undefined {
  if (!/^\d+$/.test(text.trim())) return undefined;
  const n = Number(text);
  return n >= min && n <= max ? n : undefined;
}

/**
 * New or edit rule: the destination, the events it gets (long-running asks for its minutes, digest
 * for its hour), what it covers (project rules may be narrowed to a template or a schedule) and the
 * filters. Nothing typed is lost on a refusal.
 */
export function RuleDialog({
  scope,
  item,
  destinations,
  onClose,
}: {
  scope: NotificationScope;
  item: NotificationRule | null;
  destinations: NotificationDestination[];
  onClose(): void;
}) {
  const { t } = useTranslation();
  const save = useSaveRule(scope, item?.id ?? null);
  const { templates, schedules } = useScopeChoices(scope);
  const [v, setV] = useState<Values>(() => initial(item, destinations));
  const [checked, setChecked] = useState(false);
  const set = <K extends keyof Values>(k: K, value: Values[K]) => setV((old) => ({ ...old, [k]: value }));
  const has = (e: NotificationEventName) => v.events.includes(e);
  const minutes = whole(v.long_running_minutes, 1, NOTIFICATION_LIMITS.longRunningMinutesMax);
  const hour = whole(v.digest_hour, 0, 23);
  const errors = {
    destination: v.destination_id === '' ? t('notifications.destinationRequired') : undefined,
    // A template or schedule rule with no event silences the destination for it; a project rule needs one.
    events: !v.events.length && !v.scope ? t('notifications.eventsRequired') : undefined,
    minutes:
      has('long_running') && minutes === undefined
        ? t('notifications.wholeNumber', { min: 1, max: NOTIFICATION_LIMITS.longRunningMinutesMax })
        : undefined,
    hour: has('digest') && hour === undefined ? t('notifications.wholeNumber', { min: 0, max: 23 }) : undefined,
  };
  const shown = (e: string | undefined) => (checked ? e : undefined);

  const submit = async (ev: FormEvent) => {
    ev.preventDefault();
    setChecked(true);
    if (Object.values(errors).some(Boolean) || v.destination_id === '') return;
    const body: NotificationRuleInput = {
      destination_id: v.destination_id,
      // In the order of the contracts, whatever order they were ticked in.
      events: NOTIFICATION_EVENTS.filter(has),
      ...(scope.projectId === null ? { template_id: null, schedule_id: null } : parseScopeValue(v.scope)),
      only_schedules: v.only_schedules,
      branch: v.branch.trim() || null,
      exclude_task_runners: v.exclude_task_runners,
      long_running_minutes: has('long_running') ? (minutes ?? null) : null,
      digest_hour: has('digest') ? (hour ?? null) : null,
    };
    if (
      await save.mutateAsync(body).then(
        () => true,
        () => false,
      )
    )
      onClose();
  };

  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{item ? t('notifications.editRule') : t('notifications.newRule')}</DialogTitle>
      <DialogContent>
        <Stack
          spacing={1.5}
          component="form"
          id="rule-form"
          noValidate
          onSubmit={(ev) => void submit(ev)}
          sx={{ pt: 1 }}
        >
          <FormError error={save.error} />
          <TextField
            select
            label={t('notifications.destination')}
            value={v.destination_id}
            onChange={(e) => set('destination_id', Number(e.target.value))}
            required
            autoFocus
            error={!!shown(errors.destination)}
            helperText={shown(errors.destination) ?? ' '}
          >
            {destinations.map((d) => (
              <MenuItem key={d.id} value={d.id}>
                {d.name} ({t(`notifications.kinds.${d.kind}`)})
              </MenuItem>
            ))}
          </TextField>
          <FormControl component="fieldset" error={!!shown(errors.events)}>
            <FormLabel component="legend">{t('notifications.events')}</FormLabel>
            <FormGroup sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' } }}>
              {NOTIFICATION_EVENTS.map((e) => (
                <FormControlLabel
                  key={e}
                  control={
                    <Checkbox
                      checked={has(e)}
                      onChange={(ev) =>
                        set('events', ev.target.checked ? [...v.events, e] : v.events.filter((x) => x !== e))
                      }
                    />
                  }
                  label={t(`notifications.eventNames.${e}`)}
                />
              ))}
            </FormGroup>
            <FormHelperText>{shown(errors.events) ?? t('notifications.eventsHelp')}</FormHelperText>
          </FormControl>
          {has('long_running') ? (
            <TextField
              label={t('notifications.longRunningMinutes')}
              value={v.long_running_minutes}
              onChange={(e) => set('long_running_minutes', e.target.value)}
              error={!!shown(errors.minutes)}
              helperText={shown(errors.minutes) ?? t('notifications.longRunningHelp')}
              slotProps={{ htmlInput: { inputMode: 'numeric' } }}
            />
          ) : null}
          {has('digest') ? (
            <TextField
              label={t('notifications.digestHour')}
              value={v.digest_hour}
              onChange={(e) => set('digest_hour', e.target.value)}
              error={!!shown(errors.hour)}
              helperText={shown(errors.hour) ?? t('notifications.digestHelp')}
              slotProps={{ htmlInput: { inputMode: 'numeric' } }}
            />
          ) : null}
          {scope.projectId !== null ? (
            <TextField
              select
              label={t('notifications.scope')}
              value={v.scope}
              onChange={(e) => set('scope', e.target.value)}
              helperText={t('notifications.scopeHelp')}
              // '' is a choice (the whole project), shown as such rather than as an empty field.
              slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
            >
              <MenuItem value="">{t('notifications.scopeProject')}</MenuItem>
              {templates.length ? <ListSubheader>{t('notifications.templates')}</ListSubheader> : null}
              {templates.map((x) => (
                <MenuItem key={`t${x.id}`} value={`template:${x.id}`}>
                  {x.name}
                </MenuItem>
              ))}
              {schedules.length ? <ListSubheader>{t('notifications.schedules')}</ListSubheader> : null}
              {schedules.map((x) => (
                <MenuItem key={`s${x.id}`} value={`schedule:${x.id}`}>
                  {x.name}
                </MenuItem>
              ))}
            </TextField>
          ) : null}
          <TextField
            label={t('notifications.branch')}
            value={v.branch}
            onChange={(e) => set('branch', e.target.value)}
            helperText={t('notifications.branchHelp')}
            slotProps={{
              htmlInput: { maxLength: NOTIFICATION_LIMITS.branchMax, autoComplete: 'off', spellCheck: false },
            }}
          />
          <FormControlLabel
            control={<Switch checked={v.only_schedules} onChange={(e) => set('only_schedules', e.target.checked)} />}
            label={t('notifications.onlySchedules')}
          />
          <FormControlLabel
            control={
              <Switch
                checked={v.exclude_task_runners}
                onChange={(e) => set('exclude_task_runners', e.target.checked)}
              />
            }
            label={t('notifications.excludeTaskRunners')}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button type="submit" form="rule-form" variant="contained" disabled={save.isPending}>
          {item ? t('common.save') : t('common.create')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
