import { VARIABLE_TYPES, extractValueInputSchema, type ExtractValue } from '@gantry/contracts';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { contractResolver } from '../../../lib/contract-resolver';
import { useValueMutations } from '../api/integrations-api';
import { FormSelect, FormText } from './form-fields';
import { PartDialog, RequestPlaceFields } from './part-dialog';

interface Values {
  name: string;
  value_source: ExtractValue['value_source'] | '';
  body_data_type: NonNullable<ExtractValue['body_data_type']> | '';
  key: string;
  variable_type: ExtractValue['variable_type'] | '';
  variable: string;
}

/** The request body the form's values stand for; the contract schema decides whether it is valid. */
function toBody(v: Values, integrationId: number) {
  return {
    ...v,
    integration_id: integrationId,
    value_source: v.value_source || undefined,
    // The data type means something only for the body.
    body_data_type: v.value_source === 'body' ? v.body_data_type || null : null,
    variable_type: v.variable_type || undefined,
  };
}

/** New or edit extracted value: a piece of the request handed to the task as an environment or extra variable. */
export function ValueDialog({
  projectId,
  integrationId,
  item,
  onClose,
}: {
  projectId: number;
  integrationId: number;
  item: ExtractValue | null;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const { save } = useValueMutations(projectId, integrationId);
  const form = useForm<Values>({
    resolver: contractResolver<Values>(extractValueInputSchema, (v) => toBody(v, integrationId)),
    defaultValues: {
      name: item?.name ?? '',
      value_source: item?.value_source ?? '',
      body_data_type: item?.body_data_type ?? 'json',
      key: item?.key ?? '',
      variable_type: item?.variable_type ?? 'environment',
      variable: item?.variable ?? '',
    },
  });
  const source = form.watch('value_source');
  const e = form.formState.errors;
  const c = form.control;
  const submit = form.handleSubmit(async (v) => {
    if (
      await save
        .mutateAsync({ childId: item?.id ?? null, body: extractValueInputSchema.parse(toBody(v, integrationId)) })
        .then(
          () => true,
          () => false,
        )
    )
      onClose();
  });
  return (
    <PartDialog
      title={item ? t('integrations.values.editTitle') : t('integrations.values.newTitle')}
      formId="value-form"
      editing={!!item}
      error={save.error}
      pending={save.isPending}
      onSubmit={(ev) => void submit(ev)}
      onClose={onClose}
    >
      <FormText control={c} name="name" label={t('common.name')} required error={e.name?.message} />
      <RequestPlaceFields
        control={c}
        sourceName="value_source"
        sourceLabel={t('integrations.values.valueSource')}
        bodyTypeLabel={t('integrations.values.bodyDataType')}
        source={source}
        errors={{ source: e.value_source?.message, bodyType: e.body_data_type?.message, key: e.key?.message }}
      />
      <FormSelect
        control={c}
        name="variable_type"
        label={t('integrations.values.variableType')}
        required
        error={e.variable_type?.message}
        options={VARIABLE_TYPES}
        labelOf={(o) => t(`integrations.variableTypes.${o}`)}
      />
      <FormText
        control={c}
        name="variable"
        label={t('integrations.values.variable')}
        required
        monospace
        error={e.variable?.message}
        help={t('integrations.values.variableHelp')}
      />
    </PartDialog>
  );
}
