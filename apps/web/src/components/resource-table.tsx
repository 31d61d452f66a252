import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import EditIcon from '@mui/icons-material/EditOutlined';
import ViewColumnIcon from '@mui/icons-material/ViewColumnOutlined';
import { Box, Checkbox, IconButton, ListItemText, Menu, MenuItem, Paper, Table, TableBody, TableCell, TableContainer, TableHead, TableRow, Tooltip } from '@mui/material';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { storage, StorageKeys } from '../lib/storage';

export interface ResourceColumn<T> {
  key: string;
  header: string;
  render(row: T): ReactNode;
}

export interface ResourceTableProps<T extends { id: number; name: string }> {
  /** Key under which hidden columns are remembered in the browser. */
  tableId: string;
  rows: T[];
  columns: ResourceColumn<T>[];
  canManage: boolean;
  onEdit(row: T): void;
  onDelete(row: T): void;
  label: string;
  /** How the name cell shows a row, e.g. as a link to its page (default: the plain name). */
  renderName?(row: T): ReactNode;
}

function loadHidden(tableId: string): string[] {
  try {
    const v: unknown = JSON.parse(storage.get(StorageKeys.columns(tableId)) ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * A project resource list: name first, then the resource's columns (each can be hidden from the
 * column menu, remembered per table), and edit/delete icons for those who may manage it.
 */
export function ResourceTable<T extends { id: number; name: string }>({ tableId, rows, columns, canManage, onEdit, onDelete, label, renderName }: ResourceTableProps<T>) {
  const { t } = useTranslation();
  const [hidden, setHidden] = useState<string[]>(() => loadHidden(tableId));
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const visible = columns.filter((c) => !hidden.includes(c.key));
  const toggle = (key: string) => {
    const next = hidden.includes(key) ? hidden.filter((k) => k !== key) : [...hidden, key];
    setHidden(next);
    storage.set(StorageKeys.columns(tableId), JSON.stringify(next));
  };
  return (
    <Paper variant="outlined">
      <TableContainer>
        <Table size="small" aria-label={label}>
          <TableHead>
            <TableRow>
              <TableCell sx={{ fontWeight: 600 }}>{t('common.name')}</TableCell>
              {visible.map((c) => (
                <TableCell key={c.key} sx={{ fontWeight: 600 }}>
                  {c.header}
                </TableCell>
              ))}
              <TableCell align="right" sx={{ width: 110 }}>
                <Tooltip title={t('common.columns')}>
                  <IconButton size="small" aria-label={t('common.columns')} onClick={(e) => setAnchor(e.currentTarget)}>
                    <ViewColumnIcon fontSize="small" />
                  </IconButton>
                </Tooltip>
              </TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {rows.map((row) => (
              <TableRow key={row.id} hover>
                <TableCell sx={{ fontWeight: 500 }}>{renderName ? renderName(row) : row.name}</TableCell>
                {visible.map((c) => (
                  <TableCell key={c.key}>{c.render(row)}</TableCell>
                ))}
                <TableCell align="right">
                  {canManage ? (
                    <Box sx={{ whiteSpace: 'nowrap' }}>
                      <IconButton size="small" aria-label={t('common.editNamed', { name: row.name })} onClick={() => onEdit(row)}>
                        <EditIcon fontSize="small" />
                      </IconButton>
                      <IconButton size="small" aria-label={t('common.deleteNamed', { name: row.name })} onClick={() => onDelete(row)}>
                        <DeleteIcon fontSize="small" />
                      </IconButton>
                    </Box>
                  ) : null}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </TableContainer>
      <Menu anchorEl={anchor} open={!!anchor} onClose={() => setAnchor(null)}>
        {columns.map((c) => (
          <MenuItem key={c.key} dense onClick={() => toggle(c.key)}>
            <Checkbox size="small" checked={!hidden.includes(c.key)} />
            <ListItemText primary={c.header} />
          </MenuItem>
        ))}
      </Menu>
    </Paper>
  );
}
