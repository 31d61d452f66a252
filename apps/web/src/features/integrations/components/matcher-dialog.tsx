import { MATCH_METHODS, matcherInputSchema, type Matcher } from '@gantry/contracts';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { contractResolver } from '../../../lib/contract-resolver';
import { useMatcherMutations } from '../api/integrations-api';
import { FormSelect, FormText } from './form-fields';
import { PartDialog, RequestPlaceFields } from './part-dialog';

interface Values {
  name: string;
  match_type: Matcher['match_type'] | '';
  body_data_type: NonNullable<Matcher['body_data_type']> | '';
  key: string;
  method: Matcher['method'] | '';
  value: string;
}

/** The request body the form's values stand for; the contract schema decides whether it is valid. */
function toBody(v: Values, integrationId: number) {
  return {
    ...v,
    integration_id: integrationId,
    match_type: v.match_type || undefined,
    // The data format means something only for the body.
    body_data_type: v.match_type === 'body' ? v.body_data_type || null : null,
    method: v.method || undefined,
  };
}

/** New or edit matcher: a condition on the request body or a header that must hold for the webhook to run the template. */
export function MatcherDialog({
  projectId,
  integrationId,
  item,
  onClose,
}: {
  projectId: number;
  integrationId: number;
  item: Matcher | null;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const { save } = useMatcherMutations(projectId, integrationId);
  const form = useForm<Values>({
    resolver: contractResolver<Values>(matcherInputSchema, (v) => toBody(v, integrationId)),
    defaultValues: {
      name: item?.name ?? '',
      match_type: item?.match_type ?? '',
      body_data_type: item?.body_data_type ?? 'json',
      key: item?.key ?? '',
      method: item?.method ?? '',
      value: item?.value ?? '',
    },
  });
  const source = form.watch('match_type');
  const e = form.formState.errors;
  const c = form.control;
  const submit = form.handleSubmit(async (v) => {
    if (
      await save
        .mutateAsync({ childId: item?.id ?? null, body: matcherInputSchema.parse(toBody(v, integrationId)) })
        .then(
          () => true,
          () => false,
        )
    )
      onClose();
  });
  return (
    <PartDialog
      title={item ? t('integrations.matchers.editTitle') : t('integrations.matchers.newTitle')}
      formId="matcher-form"
      editing={!!item}
      error={save.error}
      pending={save.isPending}
      onSubmit={(ev) => void submit(ev)}
      onClose={onClose}
    >
      <FormText control={c} name="name" label={t('common.name')} required error={e.name?.message} />
      <RequestPlaceFields
        control={c}
        sourceName="match_type"
        sourceLabel={t('integrations.matchers.matchType')}
        bodyTypeLabel={t('integrations.matchers.bodyDataType')}
        source={source}
        errors={{ source: e.match_type?.message, bodyType: e.body_data_type?.message, key: e.key?.message }}
      />
      <FormSelect
        control={c}
        name="method"
        label={t('integrations.matchers.method')}
        required
        error={e.method?.message}
        options={MATCH_METHODS}
        labelOf={(o) => t(`integrations.matchers.methods.${o}`)}
      />
      <FormText
        control={c}
        name="value"
        label={t('integrations.matchers.value')}
        required
        monospace
        error={e.value?.message}
      />
    </PartDialog>
  );
}
