import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import { Box, Button, Checkbox, FormControlLabel, FormHelperText, IconButton, MenuItem, Paper, Stack, TextField, Typography } from '@mui/material';
import { SURVEY_VAR_TYPES, type SurveyVar } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';
import { OptionsSourceEditor } from '../../../components/parameters/options-source-editor';
import { ParameterDefaultField } from '../../../components/parameters/parameter-default-field';

export const emptySurveyVar = (): SurveyVar => ({ name: '', title: '', description: '', type: '', values: [], default_value: '', required: false });

interface SurveyVarsEditorProps {
  vars: SurveyVar[];
  /** The form's messages by path: `survey_vars.{i}.{field}`. */
  errors: Record<string, string>;
  onChange(v: SurveyVar[]): void;
}

/**
 * Run parameters asked when a task starts: name, title, type, help text, default, required; the
 * limits of a number, the pattern of a text, the options of a choice (static, or from a source).
 */
export function SurveyVarsEditor({ vars, errors, onChange }: SurveyVarsEditorProps) {
  const { t } = useTranslation();
  const set = (i: number, patch: Partial<SurveyVar>) => onChange(vars.map((v, j) => (j === i ? { ...v, ...patch } : v)));
  // A new type drops the settings only the old one had (the server refuses them on another type).
  const setType = (i: number, type: SurveyVar['type']) => {
    const v = vars[i]!;
    const numeric = (x: string) => x === 'int' || x === 'number';
    const textual = (x: string) => x === '' || x === 'text';
    const choice = (x: string) => x === 'enum' || x === 'multi_enum';
    set(i, {
      type,
      default_value: type === v.type ? v.default_value : '',
      ...(numeric(type) ? {} : { min: null, max: null }),
      ...(textual(type) ? {} : { regex: null }),
      ...(choice(type) ? {} : { options_source: null }),
    });
  };
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
              <TextField size="small" select label={t('templates.varType')} value={v.type} onChange={(e) => setType(i, e.target.value as SurveyVar['type'])} sx={{ minWidth: 140 }}>
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
              <ParameterDefaultField v={v} error={err('default_value')} onChange={(default_value) => set(i, { default_value })} />
            </Stack>
            {v.type === 'int' || v.type === 'number' ? (
              <Stack direction="row" spacing={1} sx={{ mt: 1, alignItems: 'flex-start' }}>
                {(['min', 'max'] as const).map((k) => (
                  <TextField
                    key={k}
                    size="small"
                    type="number"
                    label={t(k === 'min' ? 'templates.varMin' : 'templates.varMax')}
                    value={v[k] ?? ''}
                    onChange={(e) => set(i, { [k]: e.target.value === '' || !Number.isFinite(Number(e.target.value)) ? null : Number(e.target.value) })}
                    error={!!err(k)}
                    helperText={err(k)}
                    sx={{ width: { xs: '50%', sm: 160 } }}
                  />
                ))}
              </Stack>
            ) : null}
            {v.type === '' || v.type === 'text' ? (
              <TextField
                size="small"
                fullWidth
                label={t('templates.varRegex')}
                value={v.regex ?? ''}
                onChange={(e) => set(i, { regex: e.target.value || null })}
                error={!!err('regex')}
                helperText={err('regex') ?? t('templates.varRegexHelp')}
                slotProps={{ htmlInput: { spellCheck: false, style: { fontFamily: 'monospace' } } }}
                sx={{ mt: 1 }}
              />
            ) : null}
            {v.type === 'enum' || v.type === 'multi_enum' ? (
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
                <OptionsSourceEditor value={v.options_source} onChange={(options_source) => set(i, { options_source })} otherParameters={vars.filter((_x, j) => j !== i).map((x) => x.name).filter(Boolean)} />
                {err('options_source') ? <FormHelperText error>{err('options_source')}</FormHelperText> : null}
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
