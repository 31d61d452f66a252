import { Typography } from '@mui/material';
import type { ExtractValue } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ResourceTable } from '../../../components/resource-table';
import { integrationQueries, useValueMutations } from '../api/integrations-api';
import { Section } from './section';
import { useConfirmDelete } from '../../../components/use-confirm-delete';
import { ValueDialog } from './value-dialog';

/** The values an integration takes from each request and hands to the task it starts. */
export function ValuesSection({
  projectId,
  integrationId,
  canUpdate,
}: {
  projectId: number;
  integrationId: number;
  canUpdate: boolean;
}) {
  const { t } = useTranslation();
  const values = useQuery(integrationQueries.values(projectId, integrationId));
  const { remove } = useValueMutations(projectId, integrationId);
  const [editing, setEditing] = useState<ExtractValue | 'new' | null>(null);
  const del = useConfirmDelete<ExtractValue>({
    object: t('integrations.values.object'),
    remove: (v) => remove.mutateAsync(v.id),
  });
  const rows = values.data ?? [];
  return (
    <Section
      title={t('integrations.values.title')}
      hint={t('integrations.values.hint')}
      addLabel={t('integrations.values.add')}
      onAdd={canUpdate ? () => setEditing('new') : undefined}
    >
      {rows.length ? (
        <ResourceTable<ExtractValue>
          tableId="integration-values"
          label={t('integrations.values.title')}
          rows={rows}
          canManage={canUpdate}
          onEdit={setEditing}
          onDelete={del.request}
          columns={[
            {
              key: 'value_source',
              header: t('integrations.values.valueSource'),
              render: (v) => t(`integrations.sources.${v.value_source}`),
            },
            {
              key: 'body_data_type',
              header: t('integrations.values.bodyDataType'),
              render: (v) => (v.body_data_type ? t(`integrations.bodyDataTypes.${v.body_data_type}`) : ''),
            },
            { key: 'key', header: t('integrations.key'), render: (v) => <code>{v.key}</code> },
            {
              key: 'variable_type',
              header: t('integrations.values.variableType'),
              render: (v) => t(`integrations.variableTypes.${v.variable_type}`),
            },
            { key: 'variable', header: t('integrations.values.variable'), render: (v) => <code>{v.variable}</code> },
          ]}
        />
      ) : values.isSuccess ? (
        <Typography variant="body2" color="text.secondary">
          {t('integrations.values.none')}
        </Typography>
      ) : null}
      {editing ? (
        <ValueDialog
          projectId={projectId}
          integrationId={integrationId}
          item={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
        />
      ) : null}
      {del.dialog}
    </Section>
  );
}
