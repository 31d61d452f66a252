import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import { Alert, Box, Button, IconButton, Stack, TextField, ToggleButton, ToggleButtonGroup, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CodeEditor } from '../../../components/code-editor';

type Row = { name: string; value: string };

function parse(text: string): { ok: true; obj: Record<string, unknown> } | { ok: false; error: string } {
  try {
    const v: unknown = JSON.parse(text.trim() || '{}');
    if (!v || typeof v !== 'object' || Array.isArray(v)) return { ok: false, error: 'not an object' };
    return { ok: true, obj: v as Record<string, unknown> };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

const complex = (obj: Record<string, unknown>) => Object.values(obj).some((v) => v !== null && typeof v === 'object');
const toRows = (obj: Record<string, unknown>): Row[] => Object.entries(obj).map(([name, value]) => ({ name, value: typeof value === 'string' ? value : JSON.stringify(value) }));
const toText = (rows: Row[]) => JSON.stringify(Object.fromEntries(rows.filter((r) => r.name.trim()).map((r) => [r.name.trim(), r.value])), null, 2);

/**
 * Variables as a table or as JSON (spec 4): table -> JSON serialises; JSON -> table refuses
 * invalid JSON (the parse error shows and JSON mode stays); nested values make the table
 * unavailable with a warning. It opens in table mode unless a value is an object.
 */
export function VarsEditor({ label, value, onChange, error, testId }: { label: string; value: string; onChange(text: string): void; error?: string; testId: string }) {
  const { t } = useTranslation();
  const initial = parse(value);
  const [mode, setMode] = useState<'table' | 'json'>(initial.ok && !complex(initial.obj) ? 'table' : 'json');
  const [rows, setRows] = useState<Row[]>(initial.ok ? toRows(initial.obj) : []);
  const [parseError, setParseError] = useState<string | null>(null);
  const current = parse(value);
  const tooComplex = current.ok && complex(current.obj);

  const switchTo = (next: 'table' | 'json' | null) => {
    if (!next || next === mode) return;
    if (next === 'json') {
      onChange(toText(rows));
      setMode('json');
      return;
    }
    const r = parse(value);
    if (!r.ok) {
      setParseError(r.error);
      return;
    }
    if (complex(r.obj)) return;
    setParseError(null);
    setRows(toRows(r.obj));
    setMode('table');
  };
  const update = (next: Row[]) => {
    setRows(next);
    onChange(toText(next));
  };

  return (
    <Box data-testid={testId}>
      <Stack direction="row" sx={{ alignItems: 'center', mb: 1 }}>
        <Typography variant="subtitle2" sx={{ flexGrow: 1 }}>
          {label}
        </Typography>
        <ToggleButtonGroup size="small" exclusive value={mode} onChange={(_e, v: 'table' | 'json' | null) => switchTo(v)}>
          <ToggleButton value="table" disabled={mode === 'json' && tooComplex}>
            {t('environments.tableMode')}
          </ToggleButton>
          <ToggleButton value="json">{t('environments.jsonMode')}</ToggleButton>
        </ToggleButtonGroup>
      </Stack>
      {mode === 'json' && tooComplex ? (
        <Alert severity="warning" sx={{ mb: 1 }}>
          {t('environments.tooComplex')}
        </Alert>
      ) : null}
      {parseError ? (
        <Alert severity="error" sx={{ mb: 1 }} role="alert">
          {t('environments.parseError', { message: parseError })}
        </Alert>
      ) : null}
      {mode === 'json' ? (
        <CodeEditor label={label} value={value} onChange={(v) => { setParseError(null); onChange(v); }} language="json" error={!!error} helperText={error} minHeight={120} />
      ) : (
        <Stack spacing={1}>
          {rows.map((r, i) => (
            <Stack key={i} direction="row" spacing={1}>
              <TextField size="small" label={t('environments.varName')} value={r.name} onChange={(e) => update(rows.map((x, j) => (j === i ? { ...x, name: e.target.value } : x)))} sx={{ flex: 1 }} />
              <TextField size="small" label={t('environments.varValue')} value={r.value} onChange={(e) => update(rows.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)))} sx={{ flex: 2 }} />
              <IconButton aria-label={t('environments.removeVar')} onClick={() => update(rows.filter((_x, j) => j !== i))}>
                <DeleteIcon fontSize="small" />
              </IconButton>
            </Stack>
          ))}
          <Button size="small" startIcon={<AddIcon />} onClick={() => setRows([...rows, { name: '', value: '' }])} sx={{ alignSelf: 'flex-start' }}>
            {t('environments.addVar')}
          </Button>
          {error ? <Typography color="error" variant="caption">{error}</Typography> : null}
        </Stack>
      )}
    </Box>
  );
}
