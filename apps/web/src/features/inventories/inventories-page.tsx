import { Box, Stack } from '@mui/material';
import { WORKSPACE_INVENTORY_TYPES, type Inventory } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { QueryStates } from '../../components/query-states';
import { ResourceTable } from '../../components/resource-table';
import { useSafeDelete } from '../../components/use-safe-delete';
import { useProjectAccess, useProjectId } from '../../lib/project-access';
import { projectKeys, projectQueries } from '../../lib/project-queries';
import { InventoryDialog } from './components/inventory-dialog';
import { LastRead } from './components/last-read';
import { NewInventoryMenu } from './components/new-inventory-menu';
import { kindOf, type InventoryKind } from './inventory-kinds';
import { DriftBadge } from '../terraform-plans/components/drift-badge';

/** /project/{id}/inventory: name, type, and the path for file and workspace types; New offers a menu of kinds. */
export function InventoriesPage() {
  const { t } = useTranslation();
  const projectId = useProjectId();
  const { canManage } = useProjectAccess(projectId);
  const query = useQuery(projectQueries.inventories(projectId));
  const inventories = query.data ?? [];
  const keys = useQuery(projectQueries.keys(projectId)).data ?? [];
  const repositories = useQuery(projectQueries.repositories(projectId)).data ?? [];
  /** An inventory to edit, or the kind of a new one. */
  const [editing, setEditing] = useState<Inventory | InventoryKind | null>(null);
  const del = useSafeDelete({
    projectId,
    object: t('inventories.object'),
    baseUrl: `/project/${projectId}/inventory`,
    invalidate: projectKeys.inventories(projectId),
  });
  return (
    <Box>
      <PageHeader
        title={t('inventories.title')}
        actions={canManage ? <NewInventoryMenu onChoose={setEditing} /> : null}
      />
      {inventories.length ? (
        <ResourceTable<Inventory>
          tableId="inventories"
          label={t('inventories.title')}
          rows={inventories}
          canManage={canManage}
          onEdit={setEditing}
          onDelete={(i) => void del.request(i)}
          columns={[
            {
              key: 'type',
              header: t('inventories.type'),
              // A Terraform/OpenTofu workspace: what its last drift check found.
              render: (i) =>
                i.drift ? (
                  <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
                    <span>{t(`inventories.types.${i.type}`)}</span>
                    <DriftBadge drift={i.drift} />
                  </Stack>
                ) : (
                  t(`inventories.types.${i.type}`)
                ),
            },
            {
              key: 'path',
              header: t('inventories.path'),
              render: (i) =>
                i.type === 'file' || i.type === 'url' || WORKSPACE_INVENTORY_TYPES.includes(i.type) ? (
                  <code style={{ overflowWrap: 'anywhere' }}>
                    {i.inventory}
                    {i.git_branch ? ` @ ${i.git_branch}` : ''}
                  </code>
                ) : (
                  ''
                ),
            },
            {
              key: 'lastRead',
              header: t('inventories.lastReadColumn'),
              render: (i) => <LastRead inventory={i} compact />,
            },
          ]}
        />
      ) : (
        <QueryStates
          query={query}
          empty={<EmptyState title={t('inventories.none')} hint={t('inventories.noneHint')} />}
        />
      )}
      {editing ? (
        <InventoryDialog
          projectId={projectId}
          item={typeof editing === 'string' ? null : editing}
          kind={typeof editing === 'string' ? editing : kindOf(editing.type)}
          keys={keys}
          repositories={repositories}
          onClose={() => setEditing(null)}
        />
      ) : null}
      {del.dialogs}
    </Box>
  );
}
