import type { Inventory, StateDiff, TerraformState, TerraformStateVersion } from '@gantry/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { projectKeys } from '../../../lib/project-queries';

/** The workspace inventory type of a terraform/tofu template. */
export const workspaceType = (app: string) => (app === 'tofu' ? 'tofu-workspace' : 'terraform-workspace');

/** The template's workspaces: inventories attached to it. */
export const templateWorkspacesQuery = (p: number, templateId: number) =>
  queryOptions({
    queryKey: [...projectKeys.inventories(p), 'template', templateId],
    queryFn: () => api.get<Inventory[]>(`/project/${p}/inventory?template_id=${templateId}`),
  });

/** All workspace inventories of the project usable by an app (for the attach dialog). */
export const appWorkspacesQuery = (p: number, app: string) =>
  queryOptions({
    queryKey: [...projectKeys.inventories(p), 'app', app],
    queryFn: () => api.get<Inventory[]>(`/project/${p}/inventory?app=${app}`),
  });

export const stateVersionsQuery = (p: number, inventoryId: number) =>
  queryOptions({
    queryKey: ['project', p, 'inventory', inventoryId, 'states'],
    queryFn: () => api.get<TerraformStateVersion[]>(`/project/${p}/inventory/${inventoryId}/terraform/states`),
  });

export const stateVersionQuery = (p: number, inventoryId: number, stateId: number) =>
  queryOptions({
    queryKey: ['project', p, 'inventory', inventoryId, 'states', stateId],
    queryFn: () => api.get<TerraformState>(`/project/${p}/inventory/${inventoryId}/terraform/states/${stateId}`),
    retry: false,
  });

/** What changed from one state version to another (resources by address, attribute paths, outputs; values redacted). */
export const stateDiffQuery = (p: number, inventoryId: number, from: number, to: number) =>
  queryOptions({
    queryKey: ['project', p, 'inventory', inventoryId, 'states', 'diff', from, to],
    queryFn: () =>
      api.get<StateDiff>(`/project/${p}/inventory/${inventoryId}/terraform/states/diff?from=${from}&to=${to}`),
    retry: false,
  });

export type WorkspaceAction = 'attach' | 'detach' | 'set_default';

/** Attach, detach or make default one of a template's workspaces. */
export function useWorkspaceAction(p: number, templateId: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ action, inventoryId }: { action: WorkspaceAction; inventoryId: number }) =>
      api.post(`/project/${p}/templates/${templateId}/inventory/${inventoryId}/${action}`),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: projectKeys.inventories(p) });
      await qc.invalidateQueries({ queryKey: ['project', p, 'template', templateId] });
    },
  });
}

/** Creates a workspace inventory (named as its workspace) and attaches it to the template. */
export function useCreateWorkspace(p: number, templateId: number, app: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ name, ssh_key_id }: { name: string; ssh_key_id: number }) => {
      const inv = await api.post<Inventory>(`/project/${p}/inventory`, {
        name,
        type: workspaceType(app),
        inventory: name,
        ssh_key_id,
      });
      await api.post(`/project/${p}/templates/${templateId}/inventory/${inv.id}/attach`);
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: projectKeys.inventories(p) }),
  });
}
