import { Checkbox, FormControlLabel, Stack, TextField } from '@mui/material';
import type { Control, FieldErrors } from 'react-hook-form';
import { Controller } from 'react-hook-form';
import { useTranslation } from 'react-i18next';

export interface ProjectFormValues {
  name: string;
  alert: boolean;
  alert_chat: string;
  max_parallel_tasks: string;
}

/** The fields shared by the new-project form and the project's settings. */
export function ProjectFormFields({ control, errors }: { control: Control<ProjectFormValues>; errors: FieldErrors<ProjectFormValues> }) {
  const { t } = useTranslation();
  return (
    <Stack spacing={2}>
      <Controller
        name="name"
        control={control}
        render={({ field }) => <TextField {...field} label={t('projects.name')} required error={!!errors.name} helperText={errors.name?.message ?? ' '} autoFocus />}
      />
      <Controller
        name="alert"
        control={control}
        render={({ field }) => <FormControlLabel control={<Checkbox checked={field.value} onChange={(e) => field.onChange(e.target.checked)} />} label={t('projects.alert')} />}
      />
      <Controller
        name="alert_chat"
        control={control}
        render={({ field }) => <TextField {...field} label={t('projects.alertChat')} helperText={t('projects.alertChatHelp')} />}
      />
      <Controller
        name="max_parallel_tasks"
        control={control}
        render={({ field }) => (
          <TextField
            {...field}
            label={t('projects.maxParallelTasks')}
            inputMode="numeric"
            error={!!errors.max_parallel_tasks}
            helperText={errors.max_parallel_tasks?.message ?? t('projects.maxParallelTasksHelp')}
          />
        )}
      />
    </Stack>
  );
}
