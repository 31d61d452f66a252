import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import { Box, Button, Checkbox, FormControlLabel, IconButton, MenuItem, Paper, Stack, TextField, Typography } from '@mui/material';
import { SURVEY_VAR_TYPES, type SurveyVar } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';

export const emptySurveyVar = (): SurveyVar => ({ name: '', title: '', description: '', type: '', values: [], default_value: '', required: false });

/** Survey variables asked when a task starts: name, title, type, enum values, required. */
export function SurveyVarsEditor({ vars, onChange }: { vars: SurveyVar[]; onChange(v: SurveyVar[]): void }) {
  const { t } = useTranslation();
  const set = (i: number, patch: Partial<SurveyVar>) => onChange(vars.map((v, j) => (j === i ? { ...v, ...patch } : v)));
  return (
    <Stack spacing={1}>
      <Typography variant="subtitle2">{t('templates.survey')}</Typography>
      {vars.map((v, i) => (
        <Paper key={i} variant="outlined" sx={{ p: 1.5 }}>
          <Stack direction="row" spacing={1} sx={{ alignItems: 'flex-start' }}>
            <TextField size="small" label={t('templates.varName')} value={v.name} onChange={(e) => set(i, { name: e.target.value })} />
            <TextField size="small" label={t('templates.varTitle')} value={v.title} onChange={(e) => set(i, { title: e.target.value })} />
            <TextField size="small" select label={t('templates.varType')} value={v.type} onChange={(e) => set(i, { type: e.target.value as SurveyVar['type'] })} sx={{ minWidth: 120 }}>
              {SURVEY_VAR_TYPES.map((x) => (
                <MenuItem key={x} value={x}>
                  {t(`templates.varTypes.${x || 'string'}`)}
                </MenuItem>
              ))}
            </TextField>
            <FormControlLabel control={<Checkbox size="small" checked={v.required} onChange={(e) => set(i, { required: e.target.checked })} />} label={t('templates.varRequired')} />
            <Box sx={{ flexGrow: 1 }} />
            <IconButton aria-label={t('templates.removeVar')} onClick={() => onChange(vars.filter((_x, j) => j !== i))}>
              <DeleteIcon fontSize="small" />
            </IconButton>
          </Stack>
          <TextField size="small" fullWidth label={t('templates.varDescription')} value={v.description} onChange={(e) => set(i, { description: e.target.value })} sx={{ mt: 1 }} />
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
              <Button size="small" startIcon={<AddIcon />} onClick={() => set(i, { values: [...v.values, { name: '', value: '' }] })} sx={{ alignSelf: 'flex-start' }}>
                {t('templates.addValue')}
              </Button>
            </Stack>
          ) : null}
        </Paper>
      ))}
      <Button size="small" startIcon={<AddIcon />} onClick={() => onChange([...vars, emptySurveyVar()])} sx={{ alignSelf: 'flex-start' }}>
        {t('templates.addVar')}
      </Button>
    </Stack>
  );
}
