import LanguageIcon from '@mui/icons-material/Translate';
import { Button, Menu, MenuItem, type MenuProps } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../lib/error-text';
import { LANGUAGES, setLanguage, type LanguageCode } from '../lib/i18n';
import { useSnackbar } from './snackbar';

/** The language shown now (English while i18next's language is none of the console's). */
export function useCurrentLanguage(): (typeof LANGUAGES)[number] {
  const { i18n } = useTranslation();
  return LANGUAGES.find((l) => l.code === i18n.language) ?? LANGUAGES[0];
}

/**
 * The list of the console's languages, each in its own name (and marked with its `lang`, so a
 * screen reader pronounces it right); picking one shows it and remembers the choice.
 */
export function LanguageList({
  anchor,
  onClose,
  onChosen,
  anchorOrigin,
  transformOrigin,
}: {
  anchor: HTMLElement | null;
  /** Called when the list closes, a language picked or not. */
  onClose(): void;
  /** Called after onClose when a language was picked. */
  onChosen?(): void;
} & Pick<MenuProps, 'anchorOrigin' | 'transformOrigin'>) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const current = useCurrentLanguage();
  const choose = (code: LanguageCode) => {
    onClose();
    onChosen?.();
    setLanguage(code).catch((e: unknown) => snackbar.error(errorText(e)));
  };
  return (
    <Menu
      anchorEl={anchor}
      open={!!anchor}
      onClose={onClose}
      anchorOrigin={anchorOrigin}
      transformOrigin={transformOrigin}
      slotProps={{ list: { 'aria-label': t('shell.language') } }}
    >
      {LANGUAGES.map((l) => (
        <MenuItem key={l.code} lang={l.code} selected={l.code === current.code} onClick={() => choose(l.code)}>
          {l.name}
        </MenuItem>
      ))}
    </Menu>
  );
}

/** A button naming the current language that opens the list (pages without the user menu: sign-in). */
export function LanguageButton() {
  const { t } = useTranslation();
  const current = useCurrentLanguage();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  return (
    <>
      <Button
        color="inherit"
        size="small"
        startIcon={<LanguageIcon fontSize="small" />}
        onClick={(e) => setAnchor(e.currentTarget)}
        aria-haspopup="menu"
        aria-expanded={anchor ? 'true' : 'false'}
        aria-label={t('shell.languageButton', { language: current.name })}
        sx={{ color: 'text.secondary', textTransform: 'none' }}
      >
        {current.name}
      </Button>
      <LanguageList anchor={anchor} onClose={() => setAnchor(null)} anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }} transformOrigin={{ vertical: 'top', horizontal: 'right' }} />
    </>
  );
}
