import { Chip, Stack, Typography } from '@mui/material';
import type { ReferenceSection, References } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { api } from '../../../lib/api-client';

const PATH: Record<ReferenceSection, string> = { templates: 'templates', inventories: 'inventory', repositories: 'repositories', schedules: 'schedules', integrations: 'integrations' };

/** What uses this template (deploys built on it, schedules, integrations), each a link. */
export function TemplateReferences({ projectId, templateId }: { projectId: number; templateId: number }) {
  const { t } = useTranslation();
  const refs = useQuery({ queryKey: ['project', projectId, 'template', templateId, 'refs'], queryFn: () => api.get<References>(`/project/${projectId}/templates/${templateId}/refs`) }).data;
  const items = refs ? (Object.keys(PATH) as ReferenceSection[]).flatMap((s) => refs[s].map((r) => ({ s, ...r }))) : [];
  if (!items.length) return null;
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', mb: 1 }}>
      <Typography variant="body2" color="text.secondary">
        {t('templates.usedBy')}
      </Typography>
      {items.map((r) => (
        <Chip key={`${r.s}-${r.id}`} size="small" clickable component={Link} to={`/project/${projectId}/${PATH[r.s]}/${r.id}`} label={`${t(`references.${r.s}`)}: ${r.name}`} />
      ))}
    </Stack>
  );
}
