import { Box, Button, Paper, Stack } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { FormError } from '../../components/form-error';
import { PageHeader } from '../../components/page-header';
import { useSnackbar } from '../../components/snackbar';
import { paths } from '../../lib/paths';
import { useCreateProject } from './api/projects-api';
import { ProjectFormFields } from './components/project-form-fields';
import { toProjectBody, useProjectForm } from './components/use-project-form';

/** /project/new: create a project (or a demo one) and open it; or go restore one from a backup. */
export function NewProjectPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const snackbar = useSnackbar();
  const create = useCreateProject();
  const form = useProjectForm();
  const submit = (demo: boolean) =>
    form.handleSubmit(async (values) => {
      const project = await create.mutateAsync({ ...toProjectBody(values), demo }).catch(() => null);
      if (!project) return;
      snackbar.success(t('projects.created', { name: project.name }));
      void navigate(paths.history(project.id));
    });
  return (
    <Box sx={{ maxWidth: 560 }}>
      <PageHeader title={t('projects.newTitle')} />
      <Paper variant="outlined" sx={{ p: 3 }} component="form" noValidate onSubmit={(e) => void submit(false)(e)}>
        <FormError error={create.error} />
        <ProjectFormFields control={form.control} errors={form.formState.errors} />
        <Stack direction="row" spacing={1} sx={{ mt: 3 }}>
          <Button type="submit" variant="contained" disabled={create.isPending}>
            {t('projects.create')}
          </Button>
          <Button onClick={(e) => void submit(true)(e)} disabled={create.isPending}>
            {t('projects.createDemo')}
          </Button>
          <Box sx={{ flexGrow: 1 }} />
          <Button component={Link} to={paths.restoreProject}>
            {t('projects.restoreFromBackup')}
          </Button>
        </Stack>
      </Paper>
    </Box>
  );
}
