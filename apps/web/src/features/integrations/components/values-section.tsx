import type { ExtractValue } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { integrationQueries, useValueMutations } from '../api/integrations-api';
import { PartsSection } from './parts-section';
import { ValueDialog } from './value-dialog';

/** The values an integration takes from each request and hands to the task it starts. */
export function ValuesSection({ projectId, integrationId, canUpdate }: { projectId: number; integrationId: number; canUpdate: boolean }) {
  const { t } = useTranslation();
  const values = useQuery(integrationQueries.values(projectId, integrationId));
  const { remove } = useValueMutations(projectId, integrationId);
  return (
    <PartsSection<ExtractValue>
      kind="values"
      rows={values.data ?? []}
      loaded={values.isSuccess}
      canUpdate={canUpdate}
      remove={(v) => remove.mutateAsync(v.id)}
      renderDialog={(item, onClose) => <ValueDialog projectId={projectId} integrationId={integrationId} item={item} onClose={onClose} />}
      columns={[
        { key: 'value_source', header: t('integrations.values.valueSource'), render: (v) => t(`integrations.sources.${v.value_source}`) },
        { key: 'body_data_type', header: t('integrations.values.bodyDataType'), render: (v) => (v.body_data_type ? t(`integrations.bodyDataTypes.${v.body_data_type}`) : '') },
        { key: 'key', header: t('integrations.key'), render: (v) => <code>{v.key}</code> },
        { key: 'variable_type', header: t('integrations.values.variableType'), render: (v) => t(`integrations.variableTypes.${v.variable_type}`) },
        { key: 'variable', header: t('integrations.values.variable'), render: (v) => <code>{v.variable}</code> },
      ]}
    />
  );
}
