import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import { Box, Button, Checkbox, FormControlLabel, FormHelperText, IconButton, MenuItem, Paper, Stack, TextField, Typography } from '@mui/material';
import { SURVEY_VAR_TYPES, type SurveyVar } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';

export const emptySurveyVar = (): SurveyVar => ({ name: '', title: '', description: '', type: '', values: [], default_value: '', required: false });

interface SurveyVarsEditorProps {
  vars: SurveyVar[];
  /** The form's messages by path: `survey_vars.{i}.{field}`. */
  errors: Record<string, string>;
  onChange(v: SurveyVar[]): void;
}

/** Survey variables asked when a task starts: name, title, type, enum values, default, required. */
export function SurveyVarsEditor({ vars, errors, onChange }: SurveyVarsEditorProps) {
  const { t } = useTranslation();
  const set = (i: number, patch: Partial<SurveyVar>) => onChange(vars.map((v, j) => (j === i ? { ...v, ...patch } : v)));
  return (
    <Stack spacing={1}>
      <Typography variant="subtitle2">{t('templates.survey')}</Typography>
      {vars.map((v, i) => {
        const err = (key: keyof SurveyVar) => errors[`survey_vars.${i}.${key}`];
        // A field shows a message only when it has one; rows align at the top, so no field moves.
        const field = (key: 'name' | 'title' | 'description') => ({ error: !!err(key), helperText: err(key) });
        return (
          <Paper key={i} variant="outlined" role="group" aria-label={t('templates.surveyVarN', { n: i + 1 })} sx={{ p: 1.5 }}>
            <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'flex-start', flexWrap: 'wrap' }}>
              <TextField size="small" required label={t('templates.varName')} value={v.name} onChange={(e) => set(i, { name: e.target.value })} {...field('name')} />
              <TextField size="small" required label={t('templates.varTitle')} value={v.title} onChange={(e) => set(i, { title: e.target.value })} {...field('title')} />
              <TextField size="small" select label={t('templates.varType')} value={v.type} onChange={(e) => set(i, { type: e.target.value as SurveyVar['type'] })} sx={{ minWidth: 120 }}>
                {SURVEY_VAR_TYPES.map((x) => (
                  <MenuItem key={x} value={x}>
                    {t(`templates.varTypes.${x || 'string'}`)}
                  </MenuItem>
                ))}
              </TextField>
              <FormControlLabel control={<Checkbox size="small" checked={v.required} onChange={(e) => set(i, { required: e.target.checked })} />} label={t('templates.varRequired')} sx={{ minHeight: 40 }} />
              <Box sx={{ flexGrow: 1 }} />
              <IconButton aria-label={t('templates.removeVar')} onClick={() => onChange(vars.filter((_x, j) => j !== i))}>
                <DeleteIcon fontSize="small" />
              </IconButton>
            </Stack>
            <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ mt: 1, alignItems: 'flex-start' }}>
              <TextField size="small" fullWidth label={t('templates.varDescription')} value={v.description} onChange={(e) => set(i, { description: e.target.value })} {...field('description')} />
              <DefaultValueField v={v} error={err('default_value')} onChange={(default_value) => set(i, { default_value })} />
            </Stack>
            {v.type === 'enum' ? (
              <Stack spacing={1} sx={{ mt: 1 }}>
                {v.values.map((x, k) => (
                  <Stack key={k} direction="row" spacing={1}>
                    <TextField size="small" label={t('templates.valueName')} value={x.name} onChange={(e) => set(i, { values: v.values.map((y, m) => (m === k ? { ...y, name: e.target.value } : y)) })} />
                    <TextField size="small" label={t('templates.valueValue')} value={x.value} onChange={(e) => set(i, { values: v.values.map((y, m) => (m === k ? { ...y, value: e.target.value } : y)) })} />
                    <IconButton aria-label={t('templates.removeValue')} onClick={() => set(i, { values: v.values.filter((_y, m) => m !== k) })}>
                      <DeleteIcon fontSize="small" />
                    </IconButton>
                  </Stack>
                ))}
                {err('values') ? <FormHelperText error>{err('values')}</FormHelperText> : null}
                <Button size="small" startIcon={<AddIcon />} onClick={() => set(i, { values: [...v.values, { name: '', value: '' }] })} sx={{ alignSelf: 'flex-start' }}>
                  {t('templates.addValue')}
                </Button>
              </Stack>
            ) : null}
          </Paper>
        );
      })}
      <Button size="small" startIcon={<AddIcon />} onClick={() => onChange([...vars, emptySurveyVar()])} sx={{ alignSelf: 'flex-start' }}>
        {t('templates.addVar')}
      </Button>
    </Stack>
  );
}

/** The answer a new task starts with: one of the values for an enum, else text. */
function DefaultValueField({ v, error, onChange }: { v: SurveyVar; error: string | undefined; onChange(value: string): void }) {
  const { t } = useTranslation();
  const common = { size: 'small', label: t('templates.varDefault'), value: v.default_value, error: !!error, helperText: error, sx: { width: { xs: '100%', sm: 260 }, flexShrink: 0 } } as const;
  if (v.type === 'enum') {
    return (
      <TextField select {...common} onChange={(e) => onChange(e.target.value)}>
        <MenuItem value="">{t('templates.none')}</MenuItem>
        {v.values
          .filter((x) => x.name)
          .map((x) => (
            <MenuItem key={x.name} value={x.value}>
              {x.name}
            </MenuItem>
          ))}
      </TextField>
    );
  }
  return (
    <TextField
      {...common}
      type={v.type === 'secret' ? 'password' : 'text'}
      autoComplete={v.type === 'secret' ? 'new-password' : 'off'}
      slotProps={{ htmlInput: { inputMode: v.type === 'int' ? 'numeric' : undefined } }}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}
