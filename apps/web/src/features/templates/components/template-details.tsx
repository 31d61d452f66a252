import { Alert, Box, Chip, Stack, Table, TableBody, TableCell, TableRow, Typography } from '@mui/material';
import type { Template } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { projectQueries } from '../../../lib/project-queries';
import { appsQuery, terraformStateQuery } from '../api/templates-api';

/** The details tab: what the template runs, with what. */
export function TemplateDetails({ projectId, template }: { projectId: number; template: Template }) {
  const { t } = useTranslation();
  const name = <T extends { id: number; name: string }>(list: T[] | undefined, id: number | null) => list?.find((x) => x.id === id)?.name ?? '';
  const repos = useQuery(projectQueries.repositories(projectId)).data;
  const envs = useQuery(projectQueries.environments(projectId)).data;
  const invs = useQuery(projectQueries.inventories(projectId)).data;
  const apps = useQuery(appsQuery).data;
  const rows: Array<[string, ReactNode]> = [
    [t('templates.app'), apps?.find((a) => a.id === template.app)?.title ?? template.app],
    [t('templates.type'), t(`templates.types.${template.type || 'task'}`)],
    [t('templates.playbook'), <code key="p">{template.playbook}</code>],
    [t('templates.repository'), name(repos, template.repository_id)],
    // Every group and inventory, in merge / `-i` order (older answers have only the first).
    [t('templates.environments'), (template.environment_ids ?? [template.environment_id]).map((id) => name(envs, id)).join(', ')],
    [t('templates.inventories'), (template.inventory_ids ?? [template.inventory_id]).map((id) => name(invs, id)).join(', ')],
    [t('templates.branch'), template.git_branch ?? ''],
    [t('templates.arguments'), <code key="a">{template.arguments ?? ''}</code>],
    [t('templates.survey'), template.survey_vars.map((v) => <Chip key={v.name} size="small" label={v.title} sx={{ mr: 0.5 }} />)],
  ];
  if (template.type === 'build') rows.push([t('templates.startVersion'), template.start_version ?? '']);
  return (
    <Table size="small" sx={{ maxWidth: 800 }}>
      <TableBody>
        {rows.map(([k, v]) => (
          <TableRow key={k}>
            <TableCell sx={{ fontWeight: 600, width: 200 }}>{k}</TableCell>
            <TableCell>{v}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/** Terraform/OpenTofu state of the template: resource addresses and output names. */
export function TemplateState({ projectId, templateId }: { projectId: number; templateId: number }) {
  const { t } = useTranslation();
  const q = useQuery(terraformStateQuery(projectId, templateId));
  if (q.isError) return <Alert severity="info">{t('templates.noState')}</Alert>;
  if (!q.data) return null;
  return (
    <Stack spacing={2}>
      <Typography variant="body2" color="text.secondary">
        {t('templates.stateSerial', { serial: q.data.serial, version: q.data.terraform_version })}
      </Typography>
      <Box>
        <Typography variant="subtitle2">{t('templates.resources')}</Typography>
        {q.data.resources.map((r) => (
          <Box key={r} component="code" sx={{ display: 'block' }}>
            {r}
          </Box>
        ))}
      </Box>
      <Box>
        <Typography variant="subtitle2">{t('templates.outputs')}</Typography>
        {q.data.outputs.map((o) => (
          <Box key={o} component="code" sx={{ display: 'block' }}>
            {o}
          </Box>
        ))}
      </Box>
    </Stack>
  );
}
