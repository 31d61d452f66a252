import { Alert, AlertTitle, Box, Button, Paper, Skeleton, Table, TableBody, TableCell, TableContainer, TableHead, TableRow } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../lib/api-client';
import { errorText } from '../lib/error-text';

/** What the states below read of a TanStack query result (any `useQuery(...)` value fits). */
export interface QueryState {
  data?: unknown;
  isPending: boolean;
  isError: boolean;
  isFetching: boolean;
  error: unknown;
  refetch(): Promise<unknown>;
}

/** Whether a failure is the server's 404 (the object is gone or never was). */
export function isNotFound(e: unknown): boolean {
  return e instanceof ApiError && e.status === 404;
}

/**
 * A page's main query in the states other than "here it is": skeleton rows while the first answer
 * loads, the server's error with Retry when it failed, else `children` (or `empty`). Data already
 * cached shows at once while it is read again, so a refetch never blanks the page.
 */
export function QueryStates({
  query,
  empty,
  loading,
  notFound,
  children,
}: {
  query: QueryState;
  /** What a loaded but empty list shows (used when there are no children). */
  empty?: ReactNode;
  /** The loading placeholder (default: skeleton table rows). */
  loading?: ReactNode;
  /** Shown instead of the error when the server answered 404. */
  notFound?: ReactNode;
  children?: ReactNode;
}) {
  if (query.isPending) return loading ?? <TableSkeleton />;
  if (query.isError && query.data === undefined) {
    if (notFound && isNotFound(query.error)) return notFound;
    return <QueryError query={query} />;
  }
  return children ?? empty ?? null;
}

/** A failed load: the server's message and a Retry button that asks again. */
export function QueryError({ query }: { query: Pick<QueryState, 'error' | 'isFetching' | 'refetch'> }) {
  const { t } = useTranslation();
  return (
    <Alert
      severity="error"
      variant="outlined"
      sx={{ overflowWrap: 'anywhere' }}
      action={
        <Button color="inherit" size="small" onClick={() => void query.refetch()} disabled={query.isFetching}>
          {t('common.retry')}
        </Button>
      }
    >
      <AlertTitle>{t('common.loadFailed')}</AlertTitle>
      {errorText(query.error)}
    </Alert>
  );
}

const widths = (row: number, col: number) => `${55 + ((row * 17 + col * 29) % 40)}%`;

/** Placeholder rows in the shape of a table, under the table's own headers when given. */
export function TableSkeleton({ headers, rows = 5, label }: { headers?: ReactNode[]; rows?: number; label?: string }) {
  const { t } = useTranslation();
  const cols = headers?.length || 4;
  return (
    <Paper variant="outlined" aria-busy="true" data-testid="table-skeleton">
      <TableContainer>
        <Table size="small" aria-label={label ?? t('app.loading')}>
          {headers ? (
            <TableHead>
              <TableRow>
                {headers.map((h, i) => (
                  <TableCell key={i} sx={{ fontWeight: 600 }}>
                    {h}
                  </TableCell>
                ))}
              </TableRow>
            </TableHead>
          ) : null}
          <TableBody>
            {Array.from({ length: rows }, (_, r) => (
              <TableRow key={r}>
                {Array.from({ length: cols }, (_, c) => (
                  <TableCell key={c}>
                    <Skeleton variant="text" width={widths(r, c)} />
                  </TableCell>
                ))}
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </TableContainer>
    </Paper>
  );
}

/** A detail page's placeholder: its title line and a few lines of content. */
export function PageSkeleton() {
  return (
    <Box aria-busy="true" data-testid="page-skeleton">
      <Skeleton variant="text" width="40%" sx={{ fontSize: '2rem', mb: 1 }} />
      <Skeleton variant="text" width="70%" />
      <Skeleton variant="text" width="55%" />
      <Skeleton variant="rounded" height={160} sx={{ mt: 2 }} />
    </Box>
  );
}
