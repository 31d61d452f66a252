import { Button, Dialog, DialogActions, DialogContent, DialogTitle, List, ListItemButton, ListItemText, ListSubheader } from '@mui/material';
import ChevronRightIcon from '@mui/icons-material/ChevronRight';
import type { ReferenceSection, References } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** Route section of each kind of referencing object. */
const SECTION_PATH: Record<ReferenceSection, string> = {
  templates: 'templates',
  inventories: 'inventory',
  repositories: 'repositories',
  schedules: 'schedules',
  integrations: 'integrations',
};

/** "Can't delete the {object}": what still uses it, each a link to its page; no delete offered. */
export function ReferencesDialog({ projectId, object, refs, onClose }: { projectId: number; object: string; refs: References; onClose(): void }) {
  const { t } = useTranslation();
  const sections = (Object.keys(SECTION_PATH) as ReferenceSection[]).filter((s) => refs[s].length > 0);
  return (
    <Dialog open onClose={onClose} maxWidth="xs" fullWidth>
      <DialogTitle>{t('references.cannotDelete', { object })}</DialogTitle>
      <DialogContent>
        {t('references.intro')}
        <List dense>
          {sections.map((s) => [
            <ListSubheader key={s} disableSticky>
              {t(`references.${s}`)}
            </ListSubheader>,
            ...refs[s].map((r) => (
              <ListItemButton key={`${s}-${r.id}`} component={Link} to={`/project/${projectId}/${SECTION_PATH[s]}/${r.id}`} onClick={onClose} data-testid="reference-link">
                {/* Drawn as a link (colour and underline): it opens the object's page. */}
                <ListItemText primary={r.name} slotProps={{ primary: { color: 'primary', sx: { textDecoration: 'underline', textUnderlineOffset: '2px' } } }} />
                <ChevronRightIcon fontSize="small" color="action" aria-hidden />
              </ListItemButton>
            )),
          ])}
        </List>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}
