import { Box, Chip, FormControl, FormControlLabel, FormHelperText, MenuItem, Switch, TextField } from '@mui/material';
import type { SurveyVar } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';
import { formValue, type SurveyFormValue, type SurveyFormValues } from './survey-answers-form';
import { useSurveyOptions } from './use-survey-options';

interface SurveyFieldsProps {
  projectId: number;
  templateId: number;
  vars: SurveyVar[];
  values: SurveyFormValues;
  /** Messages by parameter name (surveyErrors gives them all at once). */
  errors: Record<string, string>;
  onChange(name: string, value: SurveyFormValue): void;
  /** The inventory chosen at run time, for options that list its hosts or groups. */
  inventoryId?: number | null | undefined;
}

/** Answers to a template's run parameters, each type with its own control. */
export function SurveyFields({ vars, values, errors, onChange, ...where }: SurveyFieldsProps) {
  return (
    <>
      {vars.map((v) => (
        <SurveyField
          key={v.name}
          {...where}
          v={v}
          values={values}
          value={formValue(v, values[v.name])}
          error={errors[v.name]}
          onChange={(x) => onChange(v.name, x)}
        />
      ))}
    </>
  );
}

interface SurveyFieldProps extends Omit<SurveyFieldsProps, 'vars' | 'errors' | 'onChange'> {
  v: SurveyVar;
  value: SurveyFormValue;
  error: string | undefined;
  onChange(value: SurveyFormValue): void;
}

function SurveyField(props: SurveyFieldProps) {
  const { v, value, error, onChange } = props;
  const helperText = error ?? (v.description || ' ');
  const common = { label: v.title, required: v.required, error: !!error, helperText, fullWidth: true } as const;
  const text = typeof value === 'string' ? value : '';
  switch (v.type) {
    case 'enum':
    case 'multi_enum':
      return <ChoiceField {...props} />;
    case 'boolean':
      return (
        <FormControl error={!!error}>
          <FormControlLabel
            control={<Switch checked={value === true} onChange={(e) => onChange(e.target.checked)} />}
            label={v.title}
          />
          <FormHelperText sx={{ mt: 0 }}>{helperText}</FormHelperText>
        </FormControl>
      );
    case 'int':
    case 'number':
      return (
        <TextField
          {...common}
          type="number"
          value={text}
          onChange={(e) => onChange(e.target.value)}
          slotProps={{
            htmlInput: {
              min: v.min ?? undefined,
              max: v.max ?? undefined,
              step: v.type === 'int' ? 1 : 'any',
              inputMode: v.type === 'int' ? 'numeric' : 'decimal',
            },
          }}
        />
      );
    case 'date':
      return (
        <TextField
          {...common}
          type="date"
          value={text}
          onChange={(e) => onChange(e.target.value)}
          slotProps={{ inputLabel: { shrink: true } }}
        />
      );
    case 'secret':
      return (
        <TextField
          {...common}
          type="password"
          autoComplete="new-password"
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      );
    case 'text':
      return <TextField {...common} multiline minRows={2} value={text} onChange={(e) => onChange(e.target.value)} />;
    case '':
      return <TextField {...common} value={text} onChange={(e) => onChange(e.target.value)} />;
  }
}

/** One or several of the parameter's options (static, or from its source through useSurveyOptions). */
function ChoiceField({ projectId, templateId, inventoryId, v, values, value, error, onChange }: SurveyFieldProps) {
  const { t } = useTranslation();
  const live = useSurveyOptions({
    projectId,
    templateId,
    variable: v,
    answers: values,
    inventoryId: inventoryId ?? null,
  });
  const names = new Map(live.options.map((o) => [o.value, o.name]));
  const multiple = v.type === 'multi_enum';
  const selected = multiple ? (Array.isArray(value) ? value : []) : typeof value === 'string' ? value : '';
  const helperText =
    error ?? (live.error ? t('parameters.optionsFailed', { error: live.error }) : v.description || ' ');
  // An answer that is no longer an option (a re-run's) is still shown, so it can be seen and changed.
  const missing = (multiple ? (selected as string[]) : selected ? [selected as string] : []).filter(
    (x) => !names.has(x),
  );
  return (
    <TextField
      select
      fullWidth
      label={v.title}
      required={v.required}
      value={selected}
      error={!!error || !!live.error}
      helperText={helperText}
      onChange={(e) => onChange(e.target.value as unknown as SurveyFormValue)}
      slotProps={{
        select: multiple
          ? {
              multiple: true,
              renderValue: (sel) => (
                <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5 }}>
                  {(sel as string[]).map((x) => (
                    <Chip key={x} size="small" label={names.get(x) ?? x} />
                  ))}
                </Box>
              ),
            }
          : {},
      }}
    >
      {!multiple && !v.required ? <MenuItem value="">{t('parameters.none')}</MenuItem> : null}
      {live.loading && !live.options.length ? (
        <MenuItem disabled value="__loading">
          {t('parameters.loadingOptions')}
        </MenuItem>
      ) : null}
      {live.options.map((o) => (
        <MenuItem key={o.value} value={o.value}>
          {o.name || o.value}
        </MenuItem>
      ))}
      {missing.map((x) => (
        <MenuItem key={`missing-${x}`} value={x}>
          {x}
        </MenuItem>
      ))}
    </TextField>
  );
}
