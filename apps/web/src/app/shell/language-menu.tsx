import LanguageIcon from '@mui/icons-material/Translate';
import ChevronRightIcon from '@mui/icons-material/ChevronRight';
import { ListItemIcon, ListItemText, Menu, MenuItem } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnackbar } from '../../components/snackbar';
import { errorText } from '../../lib/error-text';
import { LANGUAGES, setLanguage, type LanguageCode } from '../../lib/i18n';

/**
 * The user menu's Language entry: shows the current language and opens the list of all of them,
 * each in its own name (and marked with its `lang`, so a screen reader pronounces it right).
 */
export function LanguageMenuItem({ onChosen }: { /** Closes the user menu once a language is picked. */ onChosen(): void }) {
  const { t, i18n } = useTranslation();
  const snackbar = useSnackbar();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const current = LANGUAGES.find((l) => l.code === i18n.language) ?? LANGUAGES[0];
  const choose = (code: LanguageCode) => {
    setAnchor(null);
    onChosen();
    setLanguage(code).catch((e: unknown) => snackbar.error(errorText(e)));
  };
  return (
    <>
      <MenuItem onClick={(e) => setAnchor(e.currentTarget)} aria-haspopup="menu" aria-expanded={anchor ? 'true' : 'false'}>
        <ListItemIcon>
          <LanguageIcon fontSize="small" />
        </ListItemIcon>
        <ListItemText primary={t('shell.language')} secondary={current.name} />
        <ChevronRightIcon fontSize="small" sx={{ ml: 1, color: 'text.secondary' }} />
      </MenuItem>
      <Menu
        anchorEl={anchor}
        open={!!anchor}
        onClose={() => setAnchor(null)}
        anchorOrigin={{ vertical: 'top', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'left' }}
        slotProps={{ list: { 'aria-label': t('shell.language') } }}
      >
        {LANGUAGES.map((l) => (
          <MenuItem key={l.code} lang={l.code} selected={l.code === current.code} onClick={() => choose(l.code)}>
            {l.name}
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}
