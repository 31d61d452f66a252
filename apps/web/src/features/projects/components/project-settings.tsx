import { Box, Button, FormControlLabel, FormHelperText, Paper, Stack, Switch, Typography } from '@mui/material';
import type { Project } from '@gantry/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { FormError } from '../../../components/form-error';
import { useSnackbar } from '../../../components/snackbar';
import { errorText } from '../../../lib/error-text';
import { paths } from '../../../lib/paths';
import { useProjects } from '../../../lib/session';
import { useDeleteProject, useUpdateProject } from '../api/projects-api';
import { ProjectFormFields } from './project-form-fields';
import { ProjectMaintenance } from './project-maintenance';
import { toProjectBody, useProjectForm } from './use-project-form';

/**
 * Settings tab: name, alerts, parallel tasks; whether the project is managed by code (an owner
 * turns it off to edit by hand); backup and cache; and deleting the project.
 */
export function ProjectSettings({ project }: { project: Project }) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const navigate = useNavigate();
  const update = useUpdateProject(project.id);
  const remove = useDeleteProject();
  const projects = useProjects();
  const form = useProjectForm(project);
  const [confirm, setConfirm] = useState(false);

  const save = form.handleSubmit(async (values) => {
    const body = toProjectBody(values);
    const ok = await update
      .mutateAsync(body)
      .then(() => true)
      .catch(() => false);
    if (ok) snackbar.success(t('projects.saved', { name: body.name }));
  });
  // Saved at once, with the stored settings as they are (not the form's unsaved edits).
  const setManaged = (managed: boolean) =>
    update
      .mutateAsync({
        name: project.name,
        alert: project.alert,
        alert_chat: project.alert_chat,
        max_parallel_tasks: project.max_parallel_tasks,
        managed_by_code: managed,
      })
      .then(() => snackbar.success(t('projects.saved', { name: project.name })))
      .catch((e: unknown) => snackbar.error(errorText(e)));
  const doDelete = async () => {
    try {
      await remove.mutateAsync(project.id);
      setConfirm(false);
      snackbar.success(t('projects.deleted', { name: project.name }));
      const next = projects.find((p) => p.id !== project.id);
      void navigate(next ? paths.history(next.id) : paths.newProject);
    } catch (e) {
      setConfirm(false);
      snackbar.error(errorText(e));
    }
  };

  return (
    <Stack spacing={3} sx={{ maxWidth: 560 }}>
      <Paper variant="outlined" sx={{ p: 3 }} component="form" noValidate onSubmit={(e) => void save(e)}>
        <Typography variant="h6" component="h2" sx={{ mb: 2 }}>
          {t('projects.generalSettings')}
        </Typography>
        <FormError error={update.error} />
        <ProjectFormFields control={form.control} errors={form.formState.errors} />
        <Box sx={{ mt: 3 }}>
          <Button type="submit" variant="contained" disabled={update.isPending}>
            {t('common.save')}
          </Button>
        </Box>
      </Paper>
      <Paper variant="outlined" sx={{ p: 3 }}>
        <FormControlLabel
          control={
            <Switch
              checked={project.managed_by_code}
              disabled={update.isPending}
              onChange={(e) => void setManaged(e.target.checked)}
              slotProps={{ input: { 'aria-describedby': 'managed-by-code-help' } }}
            />
          }
          label={t('projects.managedByCode')}
        />
        <FormHelperText id="managed-by-code-help">{t('projects.managedByCodeHelp')}</FormHelperText>
      </Paper>
      <ProjectMaintenance projectId={project.id} />
      <Paper variant="outlined" sx={{ p: 3, borderColor: 'error.main' }}>
        <Typography variant="h6" component="h2" color="error" sx={{ mb: 1 }}>
          {t('projects.dangerZone')}
        </Typography>
        <Typography variant="body2" sx={{ mb: 2 }}>
          {t('projects.deleteProjectText')}
        </Typography>
        <Button color="error" variant="outlined" onClick={() => setConfirm(true)}>
          {t('projects.deleteProject')}
        </Button>
      </Paper>
      <ConfirmDialog
        open={confirm}
        title={t('projects.deleteProjectTitle', { name: project.name })}
        text={t('common.confirmDeleteText', { name: project.name })}
        busy={remove.isPending}
        onConfirm={() => void doDelete()}
        onClose={() => setConfirm(false)}
      />
    </Stack>
  );
}
