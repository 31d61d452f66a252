import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  FormHelperText,
  MenuItem,
  Stack,
  Switch,
  TextField,
} from '@mui/material';
import {
  identityMappingInputSchema,
  PROJECT_ROLES,
  type IdentityMapping,
  type IdentityMappingInput,
  type IdentitySource,
  type Project,
  type ProjectRole,
} from '@gantry/contracts';
import { useEffect } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { focusFirstField } from '../../../components/focus-first-field';
import { FormError } from '../../../components/form-error';
import { useSnackbar } from '../../../components/snackbar';
import { contractResolver } from '../../../lib/contract-resolver';
import { useSaveMapping } from '../api/mappings-api';

interface Values {
  source: string;
  group: string;
  admin: boolean;
  /** '' : no project. */
  project_id: number | '';
  role: ProjectRole | '';
}

const toBody = (v: Values) => ({
  ...v,
  project_id: v.project_id === '' ? null : v.project_id,
  role: v.role === '' ? null : v.role,
});

/** Adds a rule (`mapping` null) or edits one: source, group, admin switch, project and role. */
export function MappingDialog({
  mapping,
  sources,
  projects,
  onClose,
}: {
  mapping: IdentityMapping | null;
  sources: IdentitySource[];
  projects: Project[];
  onClose(): void;
}) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const save = useSaveMapping(mapping?.id ?? null);
  const form = useForm<Values>({
    resolver: contractResolver<Values>(identityMappingInputSchema, toBody),
    defaultValues: mapping
      ? {
          source: mapping.source,
          group: mapping.group,
          admin: mapping.admin,
          project_id: mapping.project_id ?? '',
          role: mapping.role ?? '',
        }
      : { source: sources[0]?.id ?? '', group: '', admin: false, project_id: '', role: '' },
  });
  const errors = form.formState.errors;
  const [projectId, role] = form.watch(['project_id', 'role']);
  const hasProject = projectId !== '';
  const { isSubmitted } = form.formState;
  // "Gives nothing" is said at the admin switch: a project role chosen after it answers it too.
  useEffect(() => {
    if (isSubmitted) void form.trigger('admin');
  }, [projectId, role, isSubmitted, form]);

  const submit = form.handleSubmit(async (v) => {
    const ok = await save
      .mutateAsync(toBody(v) as IdentityMappingInput)
      .then(() => true)
      .catch(() => false);
    if (!ok) return;
    snackbar.success(t('identity.saved', { group: v.group.trim() }));
    onClose();
  });

  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{mapping ? t('identity.editTitle') : t('identity.newTitle')}</DialogTitle>
      <DialogContent>
        <Stack
          spacing={1}
          component="form"
          ref={focusFirstField}
          id="mapping-form"
          noValidate
          onSubmit={(e) => void submit(e)}
          sx={{ pt: 1 }}
        >
          <FormError error={save.error} />
          <Controller
            name="source"
            control={form.control}
            render={({ field }) => (
              <TextField
                {...field}
                select
                label={t('identity.source')}
                required
                error={!!errors.source}
                helperText={errors.source?.message ?? ' '}
              >
                {sources.map((s) => (
                  <MenuItem key={s.id} value={s.id}>
                    {s.name}
                  </MenuItem>
                ))}
              </TextField>
            )}
          />
          <Controller
            name="group"
            control={form.control}
            render={({ field }) => (
              <TextField
                {...field}
                label={t('identity.group')}
                required
                error={!!errors.group}
                helperText={errors.group?.message ?? t('identity.groupHelp')}
              />
            )}
          />
          <Controller
            name="admin"
            control={form.control}
            render={({ field }) => (
              <>
                <FormControlLabel
                  control={<Switch checked={field.value} onChange={(e) => field.onChange(e.target.checked)} />}
                  label={t('identity.adminSwitch')}
                />
                <FormHelperText error={!!errors.admin} sx={{ mt: 0 }}>
                  {errors.admin?.message ?? t('identity.adminHelp')}
                </FormHelperText>
              </>
            )}
          />
          <Controller
            name="project_id"
            control={form.control}
            render={({ field }) => (
              <TextField
                {...field}
                select
                label={t('identity.project')}
                onChange={(e) => {
                  const value = e.target.value === '' ? '' : Number(e.target.value);
                  field.onChange(value);
                  if (value === '') form.setValue('role', '');
                  else if (form.getValues('role') === '') form.setValue('role', 'guest');
                }}
                error={!!errors.project_id}
                helperText={errors.project_id?.message ?? ' '}
                sx={{ mt: 2 }}
              >
                <MenuItem value="">{t('identity.noProject')}</MenuItem>
                {projects.map((p) => (
                  <MenuItem key={p.id} value={p.id}>
                    {p.name}
                  </MenuItem>
                ))}
              </TextField>
            )}
          />
          <Controller
            name="role"
            control={form.control}
            render={({ field }) => (
              <TextField
                {...field}
                select
                label={t('identity.role')}
                disabled={!hasProject}
                required={hasProject}
                error={!!errors.role}
                helperText={errors.role?.message ?? ' '}
              >
                {PROJECT_ROLES.map((r) => (
                  <MenuItem key={r} value={r}>
                    {t(`roles.${r}`)}
                  </MenuItem>
                ))}
              </TextField>
            )}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button type="submit" form="mapping-form" variant="contained" disabled={save.isPending}>
          {mapping ? t('common.save') : t('common.create')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
