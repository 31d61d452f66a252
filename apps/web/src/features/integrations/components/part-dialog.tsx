import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack } from '@mui/material';
import { BODY_DATA_TYPES, MATCH_TYPES } from '@gantry/contracts';
import type { FormEvent, ReactNode } from 'react';
import type { Control, FieldValues, Path } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { focusFirstField } from '../../../components/focus-first-field';
import { FormError } from '../../../components/form-error';
import { FormSelect, FormText } from './form-fields';

/** The frame of the matcher and extracted-value dialogs: title, form, error line, cancel and save. */
export function PartDialog({
  title,
  formId,
  editing,
  error,
  pending,
  onSubmit,
  onClose,
  children,
}: {
  title: string;
  formId: string;
  editing: boolean;
  error: unknown;
  pending: boolean;
  onSubmit(ev: FormEvent): void;
  onClose(): void;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{title}</DialogTitle>
      <DialogContent>
        <Stack spacing={1} component="form" ref={focusFirstField} id={formId} noValidate onSubmit={onSubmit} sx={{ pt: 1 }}>
          <FormError error={error} />
          {children}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button type="submit" form={formId} variant="contained" disabled={pending}>
          {editing ? t('common.save') : t('common.create')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/**
 * Where a matcher or an extracted value reads the request: body or header, the body's format
 * (asked only for the body) and the key (a JSON path or a header name).
 */
export function RequestPlaceFields<V extends FieldValues>({
  control,
  sourceName,
  sourceLabel,
  bodyTypeLabel,
  source,
  errors,
}: {
  control: Control<V>;
  sourceName: Path<V>;
  sourceLabel: string;
  bodyTypeLabel: string;
  source: string;
  errors: { source?: string; bodyType?: string; key?: string };
}) {
  const { t } = useTranslation();
  return (
    <>
      <FormSelect
        control={control}
        name={sourceName}
        label={sourceLabel}
        required
        error={errors.source}
        options={MATCH_TYPES}
        labelOf={(o) => t(`integrations.sources.${o}`)}
      />
      {source === 'body' ? (
        <FormSelect
          control={control}
          name={'body_data_type' as Path<V>}
          label={bodyTypeLabel}
          required
          error={errors.bodyType}
          options={BODY_DATA_TYPES}
          labelOf={(o) => t(`integrations.bodyDataTypes.${o}`)}
        />
      ) : null}
      <FormText
        control={control}
        name={'key' as Path<V>}
        label={t('integrations.key')}
        required
        monospace
        error={errors.key}
        help={t(source === 'header' ? 'integrations.keyHelpHeader' : 'integrations.keyHelpBody')}
      />
    </>
  );
}
