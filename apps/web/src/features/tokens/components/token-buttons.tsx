import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import VisibilityIcon from '@mui/icons-material/VisibilityOutlined';
import VisibilityOffIcon from '@mui/icons-material/VisibilityOffOutlined';
import { IconButton, Tooltip } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useSnackbar } from '../../../components/snackbar';

/** Copies `text`, then says `copied` (or why it could not) in the snackbar. */
export function CopyButton({ text, label, copied, size }: { text: string; label: string; copied: string; size?: 'small' | 'medium' }) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      snackbar.success(copied);
    } catch (e) {
      snackbar.error(t('tokens.copyFailed', { message: (e as Error).message }));
    }
  };
  return (
    <Tooltip title={label}>
      <IconButton size={size} aria-label={label} onClick={() => void copy()}>
        <ContentCopyIcon fontSize="small" />
      </IconButton>
    </Tooltip>
  );
}

/** Shows or hides a masked value; the labels say what is shown. */
export function RevealButton({ shown, onToggle, showLabel, hideLabel, size }: { shown: boolean; onToggle(): void; showLabel: string; hideLabel: string; size?: 'small' | 'medium' }) {
  const label = shown ? hideLabel : showLabel;
  return (
    <Tooltip title={label}>
      <IconButton size={size} aria-label={label} aria-pressed={shown} onClick={onToggle}>
        {shown ? <VisibilityOffIcon fontSize="small" /> : <VisibilityIcon fontSize="small" />}
      </IconButton>
    </Tooltip>
  );
}
