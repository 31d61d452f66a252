import { Button, Dialog, DialogActions, DialogContent, DialogTitle, MenuItem, Stack, TextField } from '@mui/material';
import { WORKSPACE_INVENTORY_TYPES, inventoryInputSchema, type AccessKey, type Inventory, type InventoryType, type Repository } from '@gantry/contracts';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { CodeEditor } from '../../../components/code-editor';
import { focusFirstField } from '../../../components/focus-first-field';
import { FormError } from '../../../components/form-error';
import { KeySelect } from '../../../components/key-select';
import { contractResolver } from '../../../lib/contract-resolver';
import { useSaveInventory } from '../api/inventories-api';
import { INVENTORY_KINDS, type InventoryKind } from '../inventory-kinds';
import { LastRead } from './last-read';

interface Values {
  name: string;
  type: InventoryType | '';
  inventory: string;
  ssh_key_id: number | '';
  become_key_id: number | '';
  repository_id: number | '';
  git_branch: string;
}

const toBody = (v: Values) => ({
  ...v,
  type: v.type || undefined,
  ssh_key_id: v.ssh_key_id || null,
  become_key_id: v.become_key_id || null,
  repository_id: v.repository_id || null,
  git_branch: v.git_branch.trim() || null,
});

/**
 * New or edit inventory of one kind: an Ansible inventory (static INI/YAML in a code editor, or a
 * file in a repository; the Type field picks among these), or a Terraform or OpenTofu workspace
 * (its type is fixed, so no Type field).
 */
export function InventoryDialog({
  projectId,
  item,
  kind,
  keys,
  repositories,
  onClose,
}: {
  projectId: number;
  item: Inventory | null;
  kind: InventoryKind;
  keys: AccessKey[];
  repositories: Repository[];
  onClose(): void;
}) {
  const { t } = useTranslation();
  const types: readonly InventoryType[] = INVENTORY_KINDS[kind];
  const save = useSaveInventory(projectId, item?.id ?? null);
  const form = useForm<Values>({
    resolver: contractResolver<Values>(inventoryInputSchema, toBody),
    defaultValues: {
      name: item?.name ?? '',
      type: item?.type ?? types[0],
      inventory: item?.inventory ?? '',
      ssh_key_id: item?.ssh_key_id ?? '',
      become_key_id: item?.become_key_id ?? '',
      repository_id: item?.repository_id ?? '',
      git_branch: item?.git_branch ?? '',
    },
  });
  const type = form.watch('type');
  const e = form.formState.errors;
  const workspace = !!type && WORKSPACE_INVENTORY_TYPES.includes(type);
  const submit = form.handleSubmit(async (v) => {
    if (await save.mutateAsync(inventoryInputSchema.parse(toBody(v))).then(() => true, () => false)) onClose();
  });
  return (
    <Dialog open onClose={onClose} maxWidth="md" fullWidth>
      <DialogTitle>{t(item ? 'inventories.editKindTitle' : 'inventories.newKindTitle', { kind: t(`inventories.kinds.${kind}`) })}</DialogTitle>
      <DialogContent>
        <Stack spacing={1} component="form" ref={focusFirstField} id="inventory-form" noValidate onSubmit={(ev) => void submit(ev)} sx={{ pt: 1 }}>
          <FormError error={save.error} />
          {item ? <LastRead inventory={item} /> : null}
          <Controller name="name" control={form.control} render={({ field }) => <TextField {...field} label={t('common.name')} required error={!!e.name} helperText={e.name?.message ?? ' '} />} />
          {types.length > 1 ? (
            <Controller
              name="type"
              control={form.control}
              render={({ field }) => (
                <TextField {...field} select label={t('inventories.type')} required error={!!e.type} helperText={e.type?.message ?? ' '}>
                  {types.map((x) => (
                    <MenuItem key={x} value={x}>
                      {t(`inventories.types.${x}`)}
                    </MenuItem>
                  ))}
                </TextField>
              )}
            />
          ) : null}
          <Controller
            name="ssh_key_id"
            control={form.control}
            render={({ field }) => <KeySelect {...field} keys={keys} allowNone={t('inventories.noCredentials')} label={t('inventories.credentials')} error={!!e.ssh_key_id} helperText={e.ssh_key_id?.message ?? t('inventories.credentialsHelp')} />}
          />
          {!workspace ? (
            <Controller
              name="become_key_id"
              control={form.control}
              render={({ field }) => <KeySelect {...field} keys={keys.filter((k) => k.type === 'login_password')} allowNone={t('inventories.noBecome')} label={t('inventories.become')} helperText={t('inventories.becomeHelp')} />}
            />
          ) : null}
          {type === 'file' ? (
            <>
              <Controller name="inventory" control={form.control} render={({ field }) => <TextField {...field} label={t('inventories.path')} required placeholder="inventories/production.ini" error={!!e.inventory} helperText={e.inventory?.message ?? t('inventories.pathHelp')} />} />
              <Controller
                name="repository_id"
                control={form.control}
                render={({ field }) => (
                  <TextField {...field} select label={t('inventories.repository')} helperText={t('inventories.repositoryHelp')}>
                    <MenuItem value="">{t('inventories.templateRepository')}</MenuItem>
                    {repositories.map((r) => (
                      <MenuItem key={r.id} value={r.id}>
                        {r.name}
                      </MenuItem>
                    ))}
                  </TextField>
                )}
              />
              <Controller name="git_branch" control={form.control} render={({ field }) => <TextField {...field} label={t('inventories.branch')} placeholder="main" error={!!e.git_branch} helperText={e.git_branch?.message ?? t('inventories.branchHelp')} />} />
            </>
          ) : type === 'url' ? (
            <Controller name="inventory" control={form.control} render={({ field }) => <TextField {...field} type="url" label={t('inventories.url')} required placeholder="https://cmdb.example.com/inventory.yml" error={!!e.inventory} helperText={e.inventory?.message ?? t('inventories.urlHelp')} />} />
          ) : workspace ? (
            <Controller name="inventory" control={form.control} render={({ field }) => <TextField {...field} label={t('inventories.workspace')} required error={!!e.inventory} helperText={e.inventory?.message ?? ' '} />} />
          ) : (
            <Controller
              name="inventory"
              control={form.control}
              render={({ field }) => <CodeEditor label={t('inventories.content')} value={field.value} onChange={field.onChange} language={type === 'static-yaml' ? 'yaml' : 'ini'} />}
            />
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button type="submit" form="inventory-form" variant="contained" disabled={save.isPending}>
          {item ? t('common.save') : t('common.create')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
