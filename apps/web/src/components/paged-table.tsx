import { Paper, Table, TableBody, TableCell, TableContainer, TableHead, TablePagination, TableRow } from '@mui/material';
import { PAGE_SIZE } from '@gantry/contracts';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export interface Column<T> {
  key: string;
  header: ReactNode;
  render(row: T): ReactNode;
  align?: 'left' | 'right' | 'center';
  width?: number | string;
}

/** A dense table of rows, paged at the spec's 20 rows when `paged`. */
export function PagedTable<T>({ rows, columns, rowKey, paged = true, label, pageSize = PAGE_SIZE }: { rows: T[]; columns: Column<T>[]; rowKey(row: T): string | number; paged?: boolean; label: string; pageSize?: number }) {
  const { t } = useTranslation();
  const [page, setPage] = useState(0);
  const visible = paged ? rows.slice(page * pageSize, (page + 1) * pageSize) : rows;
  return (
    <Paper variant="outlined">
      <TableContainer>
        <Table size="small" aria-label={label}>
          <TableHead>
            <TableRow>
              {columns.map((c) => (
                <TableCell key={c.key} align={c.align} sx={{ fontWeight: 600, width: c.width }}>
                  {c.header}
                </TableCell>
              ))}
            </TableRow>
          </TableHead>
          <TableBody>
            {visible.map((row) => (
              <TableRow key={rowKey(row)} hover>
                {columns.map((c) => (
                  <TableCell key={c.key} align={c.align}>
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
}
