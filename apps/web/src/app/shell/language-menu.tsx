import LanguageIcon from '@mui/icons-material/Translate';
import ChevronRightIcon from '@mui/icons-material/ChevronRight';
import { ListItemIcon, ListItemText, MenuItem } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LanguageList, useCurrentLanguage } from '../../components/language-menu';

/** The user menu's Language entry: shows the current language and opens the list of all of them. */
export function LanguageMenuItem({ onChosen }: { /** Closes the user menu once a language is picked. */ onChosen(): void }) {
  const { t } = useTranslation();
  const current = useCurrentLanguage();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  return (
    <>
      <MenuItem onClick={(e) => setAnchor(e.currentTarget)} aria-haspopup="menu" aria-expanded={anchor ? 'true' : 'false'}>
        <ListItemIcon>
          <LanguageIcon fontSize="small" />
        </ListItemIcon>
        <ListItemText primary={t('shell.language')} secondary={current.name} />
        <ChevronRightIcon fontSize="small" sx={{ ml: 1, color: 'text.secondary' }} />
      </MenuItem>
      <LanguageList
        anchor={anchor}
        onClose={() => setAnchor(null)}
        onChosen={onChosen}
        anchorOrigin={{ vertical: 'top', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'left' }}
      />
    </>
  );
}
