import ClearIcon from '@mui/icons-material/Clear';
import KeyboardDoubleArrowDownIcon from '@mui/icons-material/KeyboardDoubleArrowDown';
import KeyboardDoubleArrowUpIcon from '@mui/icons-material/KeyboardDoubleArrowUp';
import ScheduleIcon from '@mui/icons-material/Schedule';
import SearchIcon from '@mui/icons-material/Search';
import { IconButton, InputAdornment, Stack, TextField, ToggleButton, Tooltip } from '@mui/material';
import { GoToLine } from './go-to-line';
import { TASK_OUTPUT_QUERY_MAX } from '@gantry/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

interface LogToolbarProps {
  /** Runs a search (Enter); an empty text clears it. */
  onSearch(q: string): void;
  onFirst(): void;
  onLast(): void;
  /** Shows a line (Enter in "Go to line"); answers the line shown, the number clamped to the log. */
  onGoToLine(seq: number): number | null;
  showTime: boolean;
  onShowTime(show: boolean): void;
}

/** Search box (server side, on Enter), go to a line, jumps to the first and last line, and the time column toggle. */
export function LogToolbar({ onSearch, onFirst, onLast, onGoToLine, showTime, onShowTime }: LogToolbarProps) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  return (
    // On a phone the search has a row of its own; the line field and buttons share the next.
    <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: { xs: 'wrap', sm: 'nowrap' } }}>
      <TextField
        size="small"
        value={text}
        placeholder={t('tasks.log.searchPlaceholder')}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') onSearch(text.trim());
          if (e.key === 'Escape' && text) {
            // Escape clears the search first; a second one closes the dialog.
            e.stopPropagation();
            setText('');
            onSearch('');
          }
        }}
        sx={{ flex: { xs: '1 1 100%', sm: '1 1 auto' }, minWidth: 0, maxWidth: { sm: 420 } }}
        slotProps={{
          htmlInput: { 'aria-label': t('tasks.log.search'), maxLength: TASK_OUTPUT_QUERY_MAX, enterKeyHint: 'search' },
          input: {
            startAdornment: (
              <InputAdornment position="start">
                <SearchIcon fontSize="small" />
              </InputAdornment>
            ),
            endAdornment: text ? (
              <InputAdornment position="end">
                <IconButton
                  size="small"
                  edge="end"
                  aria-label={t('tasks.log.clearSearch')}
                  onClick={() => {
                    setText('');
                    onSearch('');
                  }}
                >
                  <ClearIcon fontSize="small" />
                </IconButton>
              </InputAdornment>
            ) : null,
          },
        }}
      />
      <Stack direction="row" sx={{ flex: { xs: '1 1 100%', sm: '0 0 auto' }, ml: 'auto', alignItems: 'center' }}>
        <GoToLine onGoToLine={onGoToLine} />
        <Tooltip title={t('tasks.log.jumpFirst')}>
          <IconButton aria-label={t('tasks.log.jumpFirst')} onClick={onFirst}>
            <KeyboardDoubleArrowUpIcon />
          </IconButton>
        </Tooltip>
        <Tooltip title={t('tasks.log.jumpLast')}>
          <IconButton aria-label={t('tasks.log.jumpLast')} onClick={onLast}>
            <KeyboardDoubleArrowDownIcon />
          </IconButton>
        </Tooltip>
        <Tooltip title={t('tasks.log.timestamps')}>
          <ToggleButton value="time" size="small" selected={showTime} aria-label={t('tasks.log.timestamps')} onChange={() => onShowTime(!showTime)} sx={{ border: 0 }}>
            <ScheduleIcon />
          </ToggleButton>
        </Tooltip>
      </Stack>
    </Stack>
  );
}
