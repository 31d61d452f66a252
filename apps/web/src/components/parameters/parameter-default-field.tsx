import { MenuItem, TextField } from '@mui/material';
import type { SurveyVar } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';
import { formValue } from './survey-answers-form';

/**
 * A parameter's default answer, with the control of its type; stored as text the way Semaphore
 * keeps it (`true`/`false`, a JSON list for a multiple choice, `YYYY-MM-DD`).
 */
export function ParameterDefaultField({
  v,
  error,
  onChange,
}: {
  v: SurveyVar;
  error: string | undefined;
  onChange(value: string): void;
}) {
  const { t } = useTranslation();
  const common = {
    size: 'small',
    label: t('templates.varDefault'),
    error: !!error,
    helperText: error,
    sx: { width: { xs: '100%', sm: 260 }, flexShrink: 0 },
  } as const;
  const options = v.values.filter((x) => x.name);
  switch (v.type) {
    case 'boolean':
      return (
        <TextField select {...common} value={v.default_value} onChange={(e) => onChange(e.target.value)}>
          <MenuItem value="">{t('templates.none')}</MenuItem>
          <MenuItem value="true">{t('parameters.true')}</MenuItem>
          <MenuItem value="false">{t('parameters.false')}</MenuItem>
        </TextField>
      );
    case 'enum':
      return (
        <TextField select {...common} value={v.default_value} onChange={(e) => onChange(e.target.value)}>
          <MenuItem value="">{t('templates.none')}</MenuItem>
          {options.map((x) => (
            <MenuItem key={x.name} value={x.value}>
              {x.name}
            </MenuItem>
          ))}
        </TextField>
      );
    case 'multi_enum': {
      const list = formValue(v, v.default_value) as string[];
      return (
        <TextField
          select
          {...common}
          value={list}
          onChange={(e) => {
            const next = e.target.value as unknown as string[];
            onChange(next.length ? JSON.stringify(next) : '');
          }}
          slotProps={{
            select: {
              multiple: true,
              renderValue: (sel) =>
                (sel as string[]).map((x) => options.find((o) => o.value === x)?.name ?? x).join(', '),
            },
          }}
        >
          {options.map((x) => (
            <MenuItem key={x.name} value={x.value}>
              {x.name}
            </MenuItem>
          ))}
        </TextField>
      );
    }
    case 'int':
    case 'number':
      return (
        <TextField
          {...common}
          type="number"
          value={v.default_value}
          onChange={(e) => onChange(e.target.value)}
          slotProps={{ htmlInput: { step: v.type === 'int' ? 1 : 'any' } }}
        />
      );
    case 'date':
      return (
        <TextField
          {...common}
          type="date"
          value={v.default_value}
          onChange={(e) => onChange(e.target.value)}
          slotProps={{ inputLabel: { shrink: true } }}
        />
      );
    case 'text':
      return <TextField {...common} multiline value={v.default_value} onChange={(e) => onChange(e.target.value)} />;
    case 'secret':
    case '':
      return (
        <TextField
          {...common}
          type={v.type === 'secret' ? 'password' : 'text'}
          autoComplete={v.type === 'secret' ? 'new-password' : 'off'}
          value={v.default_value}
          onChange={(e) => onChange(e.target.value)}
        />
      );
  }
}
