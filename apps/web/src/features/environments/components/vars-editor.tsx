import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import { Alert, Box, Button, IconButton, MenuItem, Stack, TextField, ToggleButton, ToggleButtonGroup, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CodeEditor } from '../../../components/code-editor';
import { VarValueField } from './var-value-field';
import { VAR_TYPES, retype, rowValid, toRows, toText, type VarRow, type VarType } from './vars-rows';

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

/**
 * Variables as a table or as JSON (spec 4): table -> JSON serialises; JSON -> table refuses
 * invalid JSON (the parse error shows and JSON mode stays); nested values make the table
 * unavailable with a warning. It opens in table mode unless a value is an object. Each row keeps
 * its JSON type (text, number, boolean, null), so switching never turns 8080 into "8080".
 */
export function VarsEditor({ label, value, onChange, error, testId }: { label: string; value: string; onChange(text: string): void; error?: string; testId: string }) {
  const { t } = useTranslation();
  const initial = parse(value);
  const [mode, setMode] = useState<'table' | 'json'>(initial.ok && !complex(initial.obj) ? 'table' : 'json');
  const [rows, setRows] = useState<VarRow[]>(initial.ok ? toRows(initial.obj) : []);
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
  const update = (next: VarRow[]) => {
    setRows(next);
    onChange(toText(next));
  };
  const patch = (i: number, change: (r: VarRow) => VarRow) => update(rows.map((x, j) => (j === i ? change(x) : x)));

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
          <ToggleButton value="json" disabled={mode === 'table' && !rows.every(rowValid)}>
            {t('environments.jsonMode')}
          </ToggleButton>
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
            <Stack key={i} direction="row" spacing={1} sx={{ alignItems: 'flex-start' }}>
              <TextField size="small" label={t('environments.varName')} value={r.name} onChange={(e) => patch(i, (x) => ({ ...x, name: e.target.value }))} sx={{ flex: 1 }} />
              <TextField
                size="small"
                select
                label={t('environments.varType')}
                value={r.type}
                onChange={(e) => patch(i, (x) => retype(x, e.target.value as VarType))}
                sx={{ width: 130 }}
              >
                {VAR_TYPES.map((x) => (
                  <MenuItem key={x} value={x}>
                    {t(`environments.varTypes.${x}`)}
                  </MenuItem>
                ))}
              </TextField>
              <VarValueField row={r} onChange={(value) => patch(i, (x) => ({ ...x, value }))} />
              <IconButton aria-label={t('environments.removeVar')} onClick={() => update(rows.filter((_x, j) => j !== i))}>
                <DeleteIcon fontSize="small" />
              </IconButton>
            </Stack>
          ))}
          <Button size="small" startIcon={<AddIcon />} onClick={() => setRows([...rows, { name: '', value: '', type: 'string' }])} sx={{ alignSelf: 'flex-start' }}>
            {t('environments.addVar')}
          </Button>
          {error ? <Typography color="error" variant="caption">{error}</Typography> : null}
        </Stack>
      )}
    </Box>
  );
}
