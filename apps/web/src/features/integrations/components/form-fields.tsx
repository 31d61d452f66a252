import { MenuItem, TextField } from '@mui/material';
import { Controller, type Control, type FieldValues, type Path } from 'react-hook-form';

interface FieldProps<V extends FieldValues> {
  control: Control<V>;
  name: Path<V>;
  label: string;
  /** The validation message, shown instead of `help` when set. */
  error?: string;
  help?: string;
  required?: boolean;
  monospace?: boolean;
}

/** A text input bound to a react-hook-form field, with its error or help line. */
export function FormText<V extends FieldValues>({
  control,
  name,
  label,
  error,
  help,
  required,
  monospace,
}: FieldProps<V>) {
  return (
    <Controller
      name={name}
      control={control}
      render={({ field }) => (
        <TextField
          {...field}
          label={label}
          required={required}
          error={!!error}
          helperText={error ?? help ?? ' '}
          slotProps={{ htmlInput: { autoComplete: 'off', style: monospace ? { fontFamily: 'monospace' } : undefined } }}
        />
      )}
    />
  );
}

/** A select of fixed choices (an enum of the contracts), each labelled by `labelOf`. */
export function FormSelect<V extends FieldValues>({
  options,
  labelOf,
  ...p
}: FieldProps<V> & { options: readonly string[]; labelOf(option: string): string }) {
  return (
    <Controller
      name={p.name}
      control={p.control}
      render={({ field }) => (
        <TextField
          {...field}
          select
          label={p.label}
          required={p.required}
          error={!!p.error}
          helperText={p.error ?? p.help ?? ' '}
        >
          {options.map((o) => (
            <MenuItem key={o} value={o}>
              {labelOf(o)}
            </MenuItem>
          ))}
        </TextField>
      )}
    />
  );
}
