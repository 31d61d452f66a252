import { TextField } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/** A log line number has at most this many digits (the server keeps far fewer lines). */
const MAX_DIGITS = 10;

/**
 * "Go to line": digits only; Enter shows that line. A number past the log's end (or 0) goes to
 * the nearest end, and the field then says which line that was.
 */
export function GoToLine({ onGoToLine }: { onGoToLine(seq: number): number | null }) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  return (
    <TextField
      size="small"
      value={text}
      placeholder={t('tasks.log.goToLine')}
      onChange={(e) => setText(e.target.value.replace(/\D/g, '').slice(0, MAX_DIGITS))}
      onKeyDown={(e) => {
        if (e.key === 'Enter' && text) {
          const shown = onGoToLine(Number(text));
          if (shown !== null) setText(String(shown));
        }
        if (e.key === 'Escape' && text) {
          // Escape empties the field first; a second one closes the dialog.
          e.stopPropagation();
          setText('');
        }
      }}
      sx={{ flex: { xs: 1, sm: 'none' }, width: { sm: '9.5rem' }, mr: 0.5 }}
      slotProps={{ htmlInput: { 'aria-label': t('tasks.log.goToLine'), inputMode: 'numeric', enterKeyHint: 'go', autoComplete: 'off' } }}
    />
  );
}
