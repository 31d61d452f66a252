import { MenuItem, TextField } from '@mui/material';
import type { SurveyVar } from '@gantry/contracts';

/** Answers to a template's survey: text, integer, secret (password input) or one of a list. */
export function SurveyFields({ vars, values, errors, onChange }: { vars: SurveyVar[]; values: Record<string, string>; errors: Record<string, string>; onChange(name: string, value: string): void }) {
  return (
    <>
      {vars.map((v) =>
        v.type === 'enum' ? (
          <TextField key={v.name} select label={v.title} required={v.required} value={values[v.name] ?? ''} onChange={(e) => onChange(v.name, e.target.value)} error={!!errors[v.name]} helperText={errors[v.name] ?? v.description ?? ' '}>
            {v.values.map((x) => (
              <MenuItem key={x.name} value={x.value}>
                {x.name}
              </MenuItem>
            ))}
          </TextField>
        ) : (
          <TextField
            key={v.name}
            label={v.title}
            required={v.required}
            type={v.type === 'secret' ? 'password' : 'text'}
            inputMode={v.type === 'int' ? 'numeric' : undefined}
            value={values[v.name] ?? ''}
            onChange={(e) => onChange(v.name, e.target.value)}
            error={!!errors[v.name]}
            helperText={errors[v.name] ?? v.description ?? ' '}
          />
        ),
      )}
    </>
  );
}

/** Spec 5: required answers, digits only for integers. Messages by variable name. */
export function checkSurvey(vars: SurveyVar[], values: Record<string, string>, t: (k: string, o?: Record<string, string>) => string): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const v of vars) {
    const value = (values[v.name] ?? '').trim();
    if (!value && v.required) errors[v.name] = t('tasks.fieldRequired', { title: v.title });
    else if (value && v.type === 'int' && !/^-?\d+$/.test(value)) errors[v.name] = t('tasks.mustBeInteger');
  }
  return errors;
}
