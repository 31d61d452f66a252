import { Paper, Table, TableBody, TableCell, TableContainer, TableHead, TablePagination, TableRow } from '@mui/material';
import { PAGE_SIZE } from '@gantry/contracts';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { QueryStates, TableSkeleton, type QueryState } from './query-states';
import { VisuallyHidden } from './visually-hidden';

export interface Column<T> {
  key: string;
  /** An empty header is a column of buttons: screen readers hear "Actions". */
  header: ReactNode;
  render(row: T): ReactNode;
  align?: 'left' | 'right' | 'center';
  width?: number | string;
  /** Keep the cell on one line (dates, times). */
  nowrap?: boolean;
}

interface PagedTableProps<T> {
  rows: T[];
  columns: Column<T>[];
  rowKey(row: T): string | number;
  paged?: boolean;
  label: string;
  pageSize?: number;
  /** The query the rows come from: while it loads or when it failed, that state shows instead. */
  query?: QueryState;
  /** Shown instead of an empty table (the empty text, a hint, the create button). */
  empty?: ReactNode;
}

/**
 * A dense table of rows, paged at the spec's 20 rows when `paged`. Given its `query`, it shows
 * skeleton rows under its headers while loading and the error with Retry when loading failed.
 */
export function PagedTable<T>({ rows, columns, rowKey, paged = true, label, pageSize = PAGE_SIZE, query, empty }: PagedTableProps<T>) {
  const { t } = useTranslation();
  const [page, setPage] = useState(0);
  const visible = paged ? rows.slice(page * pageSize, (page + 1) * pageSize) : rows;
  const table = (
    <Paper variant="outlined">
      <TableContainer>
        <Table size="small" aria-label={label}>
          <TableHead>
            <TableRow>
              {columns.map((c) => (
                <TableCell key={c.key} align={c.align} sx={{ fontWeight: 600, width: c.width, whiteSpace: c.nowrap ? 'nowrap' : undefined }}>
                  {c.header === '' ? <VisuallyHidden>{t('common.actions')}</VisuallyHidden> : c.header}
                </TableCell>
              ))}
            </TableRow>
          </TableHead>
          <TableBody>
            {visible.map((row) => (
              <TableRow key={rowKey(row)} hover>
                {columns.map((c) => (
                  <TableCell key={c.key} align={c.align} sx={c.nowrap ? { whiteSpace: 'nowrap' } : undefined}>
                    {c.render(row)}
                  </TableCell>
                ))}
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </TableContainer>
      {paged && rows.length > pageSize ? (
        <TablePagination
          component="div"
          count={rows.length}
          page={page}
          rowsPerPage={pageSize}
          rowsPerPageOptions={[pageSize]}
          onPageChange={(_e, p) => setPage(p)}
          labelRowsPerPage={t('common.rowsPerPage')}
        />
      ) : null}
    </Paper>
  );
  if (rows.length) return table;
  if (query) return <QueryStates query={query} loading={<TableSkeleton headers={columns.map((c) => c.header)} label={label} />} empty={empty ?? table} />;
  return empty ?? table;
}
