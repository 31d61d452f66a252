import { TextField } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/** A one-line editor: Enter saves, pasted newlines become spaces, Escape cancels. */
export function DescriptionEditor({ value, editable, onSave }: { value: string; editable: boolean; onSave(v: string): void }) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState<string | null>(null);
  if (!editable) return value ? <span>{value}</span> : null;
  return (
    <TextField
      variant="standard"
      fullWidth
      placeholder={t('templates.addDescription')}
      value={draft ?? value}
      onChange={(e) => setDraft(e.target.value.replace(/[\r\n]+/g, ' '))}
      onKeyDown={(e) => {
        if (e.key === 'Enter' && draft !== null) {
          onSave(draft.trim());
          setDraft(null);
        }
        if (e.key === 'Escape') setDraft(null);
      }}
      slotProps={{ htmlInput: { 'aria-label': t('templates.description') } }}
    />
  );
}
