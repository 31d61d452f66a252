import ViewColumnIcon from '@mui/icons-material/ViewColumnOutlined';
import { Checkbox, IconButton, ListItemText, Menu, MenuItem, Tooltip } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { storage, StorageKeys } from '../../../lib/storage';

/** The templates list's columns that can be hidden (the name and the run button always show). */
export const TEMPLATE_COLUMNS = ['app', 'type', 'version', 'last', 'lastBy'] as const;
export type TemplateColumn = (typeof TEMPLATE_COLUMNS)[number];

const STORE_KEY = StorageKeys.columns('templates');

function loadHidden(): TemplateColumn[] {
  try {
    const v: unknown = JSON.parse(storage.get(STORE_KEY) ?? '[]');
    return Array.isArray(v) ? TEMPLATE_COLUMNS.filter((c) => v.includes(c)) : [];
  } catch {
    return [];
  }
}

/** The hidden columns of the templates list, remembered in this browser. */
export function useTemplateColumns() {
  const [hidden, setHidden] = useState<TemplateColumn[]>(loadHidden);
  const toggle = (c: TemplateColumn) => {
    const next = hidden.includes(c) ? hidden.filter((x) => x !== c) : [...hidden, c];
    setHidden(next);
    storage.set(STORE_KEY, JSON.stringify(next));
  };
  return { hidden, toggle };
}

/** The Columns button and its menu of check boxes, one per column that can be hidden. */
export function TemplateColumnsButton({ hidden, headers, onToggle }: { hidden: TemplateColumn[]; headers: Record<TemplateColumn, string>; onToggle(c: TemplateColumn): void }) {
  const { t } = useTranslation();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  return (
    <>
      <Tooltip title={t('common.columns')}>
        <IconButton aria-label={t('common.columns')} aria-haspopup="menu" aria-expanded={!!anchor} onClick={(e) => setAnchor(e.currentTarget)}>
          <ViewColumnIcon fontSize="small" />
        </IconButton>
      </Tooltip>
      <Menu anchorEl={anchor} open={!!anchor} onClose={() => setAnchor(null)}>
        {TEMPLATE_COLUMNS.map((c) => (
          <MenuItem key={c} dense role="menuitemcheckbox" aria-checked={!hidden.includes(c)} onClick={() => onToggle(c)}>
            <Checkbox size="small" checked={!hidden.includes(c)} tabIndex={-1} slotProps={{ input: { 'aria-hidden': true } }} sx={{ p: 0.5, mr: 1 }} />
            <ListItemText primary={headers[c]} />
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}
