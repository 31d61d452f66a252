import { Autocomplete, Button, Dialog, DialogActions, DialogContent, DialogTitle, MenuItem, Stack, TextField } from '@mui/material';
import { PROJECT_ROLES, type ProjectRole, type UserSummary } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { focusFirstField } from '../../../components/focus-first-field';
import { FormError } from '../../../components/form-error';
import { candidatesQuery, useTeamMutations } from '../api/team-api';

/** Pick a user who is not yet a member and a role. */
export function AddMemberDialog({ projectId, memberIds, canGrantOwner, onClose }: { projectId: number; memberIds: number[]; canGrantOwner: boolean; onClose(): void }) {
  const { t } = useTranslation();
  const candidates = (useQuery(candidatesQuery).data ?? []).filter((u) => !memberIds.includes(u.id));
  const { add } = useTeamMutations(projectId);
  const [user, setUser] = useState<UserSummary | null>(null);
  const [role, setRole] = useState<ProjectRole>('task_runner');
  const [touched, setTouched] = useState(false);
  const submit = async () => {
    setTouched(true);
    if (!user) return;
    if (await add.mutateAsync({ user_id: user.id, role }).then(() => true, () => false)) onClose();
  };
  return (
    <Dialog open onClose={onClose} maxWidth="xs" fullWidth>
      <DialogTitle>{t('team.addTitle')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} component="form" ref={focusFirstField} id="add-member-form" noValidate onSubmit={(e) => { e.preventDefault(); void submit(); }} sx={{ pt: 1 }}>
          <FormError error={add.error} />
          <Autocomplete
            options={candidates}
            value={user}
            onChange={(_e, v) => setUser(v)}
            getOptionLabel={(u) => `${u.name} (${u.username})`}
            renderInput={(params) => <TextField {...params} label={t('team.user')} required error={touched && !user} helperText={touched && !user ? t('team.userRequired') : ' '} />}
          />
          <TextField select label={t('team.role')} value={role} onChange={(e) => setRole(e.target.value as ProjectRole)}>
            {PROJECT_ROLES.filter((r) => r !== 'owner' || canGrantOwner).map((r) => (
              <MenuItem key={r} value={r}>
                {t(`roles.${r}`)}
              </MenuItem>
            ))}
          </TextField>
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button type="submit" form="add-member-form" variant="contained" disabled={add.isPending}>
          {t('team.add')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
