import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import { Button, IconButton, MenuItem, Paper, Stack, TextField } from '@mui/material';
import { OPTIONS_SOURCE_KINDS, type OptionsSource, type SurveyOption } from '@gantry/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

type CascadeSource = Extract<OptionsSource, { kind: 'parameter' }>;
type Kind = OptionsSource['kind'] | 'static';

/** A new source of the chosen kind (keeping what the old one had where it fits). */
function sourceOf(kind: Kind, old: OptionsSource | null | undefined, otherParameters: string[]): OptionsSource | null {
  switch (kind) {
    case 'static':
      return null;
    case 'inventory_hosts':
    case 'inventory_groups':
      return { kind };
    case 'parameter':
      return {
        kind,
        parameter: old?.kind === 'parameter' ? old.parameter : (otherParameters[0] ?? ''),
        options: old?.kind === 'parameter' ? old.options : {},
      };
    case 'url':
      return { kind, url: old?.kind === 'url' ? old.url : '' };
  }
}

/**
 * Where a choice parameter's options come from (static values, inventory hosts or groups, another
 * parameter, a URL). Static values are edited beside it; "static" here means no source.
 */
export function OptionsSourceEditor({
  value,
  onChange,
  otherParameters,
}: {
  value: OptionsSource | null | undefined;
  onChange(value: OptionsSource | null): void;
  /** Names of the template's other parameters (for a cascading source). */
  otherParameters: string[];
}) {
  const { t } = useTranslation();
  const kind: Kind = value?.kind ?? 'static';
  return (
    <Stack spacing={1}>
      <TextField
        size="small"
        select
        label={t('optionsSource.label')}
        value={kind}
        onChange={(e) => onChange(sourceOf(e.target.value as Kind, value, otherParameters))}
        helperText={t(`optionsSource.help.${kind}`)}
        sx={{ maxWidth: { sm: 360 } }}
      >
        {(['static', ...OPTIONS_SOURCE_KINDS] as const).map((k) => (
          <MenuItem key={k} value={k}>
            {t(`optionsSource.kinds.${k}`)}
          </MenuItem>
        ))}
      </TextField>
      {value?.kind === 'url' ? (
        <TextField
          size="small"
          fullWidth
          type="url"
          label={t('optionsSource.url')}
          value={value.url}
          onChange={(e) => onChange({ kind: 'url', url: e.target.value })}
          slotProps={{ htmlInput: { spellCheck: false, inputMode: 'url' } }}
        />
      ) : null}
      {value?.kind === 'parameter' ? (
        <CascadeEditor value={value} onChange={onChange} otherParameters={otherParameters} />
      ) : null}
    </Stack>
  );
}

/** One option per line: `value`, or `label | value` when the label differs. */
function optionsText(options: SurveyOption[]): string {
  return options.map((o) => (o.name && o.name !== o.value ? `${o.name} | ${o.value}` : o.value)).join('\n');
}

function parseOptions(text: string): SurveyOption[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const bar = line.lastIndexOf(' | ');
      return bar < 0
        ? { name: line, value: line }
        : { name: line.slice(0, bar).trim(), value: line.slice(bar + 3).trim() };
    });
}

interface Row {
  when: string;
  text: string;
}

/** The parent parameter, then per answer of it the options offered. */
function CascadeEditor({
  value,
  onChange,
  otherParameters,
}: {
  value: CascadeSource;
  onChange(value: OptionsSource): void;
  otherParameters: string[];
}) {
  const { t } = useTranslation();
  // The rows as typed (a half-typed answer may equal another for a moment; text keeps its blank lines).
  const [rows, setRows] = useState<Row[]>(() =>
    Object.entries(value.options).map(([when, options]) => ({ when, text: optionsText(options) })),
  );
  const update = (next: Row[], parameter = value.parameter) => {
    setRows(next);
    const options: Record<string, SurveyOption[]> = {};
    for (const r of next) if (r.when.trim()) options[r.when.trim()] = parseOptions(r.text);
    onChange({ kind: 'parameter', parameter, options });
  };
  const parents =
    otherParameters.includes(value.parameter) || !value.parameter
      ? otherParameters
      : [value.parameter, ...otherParameters];
  return (
    <Stack spacing={1}>
      <TextField
        size="small"
        select
        label={t('optionsSource.parameter')}
        value={value.parameter}
        onChange={(e) => update(rows, e.target.value)}
        helperText={parents.length ? ' ' : t('optionsSource.noOtherParameter')}
        sx={{ maxWidth: { sm: 360 } }}
      >
        {parents.map((name) => (
          <MenuItem key={name} value={name}>
            {name}
          </MenuItem>
        ))}
      </TextField>
      {rows.map((row, k) => (
        <Paper
          key={k}
          variant="outlined"
          role="group"
          aria-label={t('optionsSource.caseN', { n: k + 1 })}
          sx={{ p: 1 }}
        >
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ alignItems: { sm: 'flex-start' } }}>
            <TextField
              size="small"
              label={t('optionsSource.when', { parameter: value.parameter || '…' })}
              value={row.when}
              onChange={(e) => update(rows.map((r, m) => (m === k ? { ...r, when: e.target.value } : r)))}
              sx={{ minWidth: { sm: 180 } }}
            />
            <TextField
              size="small"
              fullWidth
              multiline
              minRows={2}
              label={t('optionsSource.options')}
              helperText={t('optionsSource.optionsHelp')}
              value={row.text}
              onChange={(e) => update(rows.map((r, m) => (m === k ? { ...r, text: e.target.value } : r)))}
            />
            <IconButton
              aria-label={t('optionsSource.removeCase')}
              onClick={() => update(rows.filter((_r, m) => m !== k))}
              sx={{ alignSelf: { xs: 'flex-end', sm: 'flex-start' } }}
            >
              <DeleteIcon fontSize="small" />
            </IconButton>
          </Stack>
        </Paper>
      ))}
      <Button
        size="small"
        startIcon={<AddIcon />}
        onClick={() => update([...rows, { when: '', text: '' }])}
        sx={{ alignSelf: 'flex-start' }}
      >
        {t('optionsSource.addCase')}
      </Button>
    </Stack>
  );
}
