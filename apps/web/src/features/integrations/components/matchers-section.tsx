import { Typography } from '@mui/material';
import type { Matcher } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ResourceTable } from '../../../components/resource-table';
import { integrationQueries, useMatcherMutations } from '../api/integrations-api';
import { MatcherDialog } from './matcher-dialog';
import { Section } from './section';
import { useConfirmDelete } from '../../../components/use-confirm-delete';

/** The matchers of an integration: every one must hold for a request to start a task. */
export function MatchersSection({
  projectId,
  integrationId,
  canUpdate,
}: {
  projectId: number;
  integrationId: number;
  canUpdate: boolean;
}) {
  const { t } = useTranslation();
  const matchers = useQuery(integrationQueries.matchers(projectId, integrationId));
  const { remove } = useMatcherMutations(projectId, integrationId);
  const [editing, setEditing] = useState<Matcher | 'new' | null>(null);
  const del = useConfirmDelete<Matcher>({
    object: t('integrations.matchers.object'),
    remove: (m) => remove.mutateAsync(m.id),
  });
  const rows = matchers.data ?? [];
  return (
    <Section
      title={t('integrations.matchers.title')}
      hint={t('integrations.matchers.hint')}
      addLabel={t('integrations.matchers.add')}
      onAdd={canUpdate ? () => setEditing('new') : undefined}
    >
      {rows.length ? (
        <ResourceTable<Matcher>
          tableId="integration-matchers"
          label={t('integrations.matchers.title')}
          rows={rows}
          canManage={canUpdate}
          onEdit={setEditing}
          onDelete={del.request}
          columns={[
            {
              key: 'match_type',
              header: t('integrations.matchers.matchType'),
              render: (m) => t(`integrations.sources.${m.match_type}`),
            },
            {
              key: 'body_data_type',
              header: t('integrations.matchers.bodyDataType'),
              render: (m) => (m.body_data_type ? t(`integrations.bodyDataTypes.${m.body_data_type}`) : ''),
            },
            { key: 'key', header: t('integrations.key'), render: (m) => <code>{m.key}</code> },
            {
              key: 'method',
              header: t('integrations.matchers.method'),
              render: (m) => t(`integrations.matchers.methods.${m.method}`),
            },
            { key: 'value', header: t('integrations.matchers.value'), render: (m) => <code>{m.value}</code> },
          ]}
        />
      ) : matchers.isSuccess ? (
        <Typography variant="body2" color="text.secondary">
          {t('integrations.matchers.none')}
        </Typography>
      ) : null}
      {editing ? (
        <MatcherDialog
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
