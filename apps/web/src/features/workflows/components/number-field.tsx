import { TextField } from '@mui/material';
import { useEffect, useState } from 'react';

/**
 * A whole-number field that keeps what is typed while it is typed (an empty field is null);
 * the contracts check the range on save.
 */
export function NumberField({
  label,
  value,
  onChange,
  helperText,
  min = 0,
  id,
}: {
  label: string;
  value: number | null | undefined;
  onChange(v: number | null): void;
  helperText?: string;
  min?: number;
  id: string;
}) {
  const [text, setText] = useState(value == null ? '' : String(value));
  useEffect(() => setText(value == null ? '' : String(value)), [value]);
  return (
    <TextField
      id={id}
      label={label}
      type="number"
      size="small"
      fullWidth
      value={text}
      helperText={helperText}
      slotProps={{ htmlInput: { min, step: 1, inputMode: 'numeric' } }}
      onChange={(e) => {
        setText(e.target.value);
        const n = e.target.value.trim() === '' ? null : Number(e.target.value);
        onChange(n === null || Number.isNaN(n) ? null : n);
      }}
    />
  );
}
