import { Box, Button, CircularProgress, List, ListItemButton, Stack, Typography } from '@mui/material';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { stripAnsi } from '../../../components/tasks/parse-ansi';
import { errorText } from '../../../lib/error-text';
import { taskOutputSearchQuery } from '../api/tasks-api';

interface LogSearchResultsProps {
  projectId: number;
  taskId: number;
  q: string;
  /** A result was clicked: show that line in the log. */
  onPick(seq: number): void;
}

/** The lines matching a search, with their numbers, a page at a time. */
export function LogSearchResults({ projectId, taskId, q, onPick }: LogSearchResultsProps) {
  const { t } = useTranslation();
  const search = useInfiniteQuery(taskOutputSearchQuery(projectId, taskId, q));
  const lines = search.data?.pages.flatMap((p) => p.lines) ?? [];
  let summary: string;
  if (search.isPending) summary = t('tasks.log.searching');
  else if (search.error) summary = errorText(search.error);
  else if (!lines.length) summary = t('tasks.log.noResults');
  else summary = t(search.hasNextPage ? 'tasks.log.resultsMore' : 'tasks.log.results', { count: lines.length });
  return (
    <Box sx={{ border: 1, borderColor: 'divider', borderRadius: 1, flexShrink: 0 }}>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', px: 1.5, py: 0.5 }}>
        {search.isFetching ? <CircularProgress size={14} /> : null}
        <Typography variant="body2" color={search.error ? 'error' : 'text.secondary'} role="status">
          {summary}
        </Typography>
      </Stack>
      {lines.length ? (
        <List dense disablePadding aria-label={t('tasks.log.resultsLabel')} sx={{ maxHeight: 168, overflow: 'auto', fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace', fontSize: 13 }}>
          {lines.map((l) => (
            <ListItemButton key={l.seq} onClick={() => onPick(l.seq)} sx={{ py: 0.25, whiteSpace: 'pre', overflow: 'hidden', textOverflow: 'ellipsis' }}>
              <Box component="span" sx={{ color: 'text.secondary', minWidth: '7ch', mr: 1.5, textAlign: 'right', flexShrink: 0 }}>
                {l.seq}
              </Box>
              <Box component="span" sx={{ overflow: 'hidden', textOverflow: 'ellipsis' }}>
                {stripAnsi(l.output)}
              </Box>
            </ListItemButton>
          ))}
          {search.hasNextPage ? (
            <Box sx={{ px: 1, py: 0.5 }}>
              <Button size="small" disabled={search.isFetchingNextPage} onClick={() => void search.fetchNextPage()}>
                {t('tasks.log.moreResults')}
              </Button>
            </Box>
          ) : null}
        </List>
      ) : null}
    </Box>
  );
}
