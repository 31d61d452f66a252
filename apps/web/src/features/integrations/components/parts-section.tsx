import { Typography } from '@mui/material';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ResourceTable, type ResourceColumn } from '../../../components/resource-table';
import { useConfirmDelete } from '../../../components/use-confirm-delete';
import { Section } from './section';

/**
 * One kind of an integration's parts (matchers or extracted values): the titled section, its
 * table, the new/edit dialog and the delete confirmation. Texts come from `integrations.<kind>.*`.
 */
export function PartsSection<T extends { id: number; name: string }>({
  kind,
  rows,
  loaded,
  canUpdate,
  columns,
  remove,
  renderDialog,
}: {
  kind: 'matchers' | 'values';
  rows: T[];
  loaded: boolean;
  canUpdate: boolean;
  columns: Array<ResourceColumn<T>>;
  remove(item: T): Promise<unknown>;
  /** The dialog for a new part (`item` null) or an existing one. */
  renderDialog(item: T | null, onClose: () => void): ReactNode;
}) {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<T | 'new' | null>(null);
  const del = useConfirmDelete<T>({ object: t(`integrations.${kind}.object`), remove });
  return (
    <Section
      title={t(`integrations.${kind}.title`)}
      hint={t(`integrations.${kind}.hint`)}
      addLabel={t(`integrations.${kind}.add`)}
      onAdd={canUpdate ? () => setEditing('new') : undefined}
    >
      {rows.length ? (
        <ResourceTable<T>
          tableId={`integration-${kind}`}
          label={t(`integrations.${kind}.title`)}
          rows={rows}
          canManage={canUpdate}
          onEdit={setEditing}
          onDelete={del.request}
          columns={columns}
        />
      ) : loaded ? (
        <Typography variant="body2" color="text.secondary">
          {t(`integrations.${kind}.none`)}
        </Typography>
      ) : null}
      {editing ? renderDialog(editing === 'new' ? null : editing, () => setEditing(null)) : null}
      {del.dialog}
    </Section>
  );
}
