import { MenuItem, TextField, type TextFieldProps } from '@mui/material';
import type { AccessKey } from '@gantry/contracts';
import { forwardRef } from 'react';

/** A select of the project's keys (optionally only some types). */
export const KeySelect = forwardRef<HTMLDivElement, Omit<TextFieldProps, 'select' | 'children'> & { keys: AccessKey[]; allowNone?: string }>(function KeySelect({ keys, allowNone, ...props }, ref) {
  return (
    <TextField {...props} ref={ref} select value={props.value ?? ''}>
      {allowNone !== undefined ? <MenuItem value="">{allowNone}</MenuItem> : null}
      {keys.map((k) => (
        <MenuItem key={k.id} value={k.id}>
          {k.name}
        </MenuItem>
      ))}
    </TextField>
  );
});
