import { Button, Dialog, DialogActions, DialogContent, DialogTitle, List, ListItem, ListItemText } from '@mui/material';
import type { References } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';

/** "Can't delete the app": the templates (of any project) that still run it; no delete offered. */
export function AppReferencesDialog({ templates, onClose }: { templates: References['templates']; onClose(): void }) {
  const { t } = useTranslation();
  return (
    <Dialog open onClose={onClose} maxWidth="xs" fullWidth>
      <DialogTitle>{t('references.cannotDelete', { object: t('apps.object') })}</DialogTitle>
      <DialogContent>
        {t('references.intro')}
        <List dense aria-label={t('references.templates')}>
          {templates.map((r) => (
            <ListItem key={r.id}>
              <ListItemText primary={r.name} />
            </ListItem>
          ))}
        </List>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}
