import type { Matcher } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { integrationQueries, useMatcherMutations } from '../api/integrations-api';
import { MatcherDialog } from './matcher-dialog';
import { PartsSection } from './parts-section';

/** The matchers of an integration: every one must hold for a request to start a task. */
export function MatchersSection({ projectId, integrationId, canUpdate }: { projectId: number; integrationId: number; canUpdate: boolean }) {
  const { t } = useTranslation();
  const matchers = useQuery(integrationQueries.matchers(projectId, integrationId));
  const { remove } = useMatcherMutations(projectId, integrationId);
  return (
    <PartsSection<Matcher>
      kind="matchers"
      rows={matchers.data ?? []}
      loaded={matchers.isSuccess}
      canUpdate={canUpdate}
      remove={(m) => remove.mutateAsync(m.id)}
      renderDialog={(item, onClose) => <MatcherDialog projectId={projectId} integrationId={integrationId} item={item} onClose={onClose} />}
      columns={[
        { key: 'match_type', header: t('integrations.matchers.matchType'), render: (m) => t(`integrations.sources.${m.match_type}`) },
        { key: 'body_data_type', header: t('integrations.matchers.bodyDataType'), render: (m) => (m.body_data_type ? t(`integrations.bodyDataTypes.${m.body_data_type}`) : '') },
        { key: 'key', header: t('integrations.key'), render: (m) => <code>{m.key}</code> },
        { key: 'method', header: t('integrations.matchers.method'), render: (m) => t(`integrations.matchers.methods.${m.method}`) },
        { key: 'value', header: t('integrations.matchers.value'), render: (m) => <code>{m.value}</code> },
      ]}
    />
  );
}
