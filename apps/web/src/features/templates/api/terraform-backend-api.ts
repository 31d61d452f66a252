import type { TerraformAlias, TerraformBackendSettings } from '@gantry/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { saveFile } from '../../../lib/save-file';
import { stateVersionsQuery } from './workspaces-api';

const workspaceKey = (p: number, inventoryId: number) => ['project', p, 'inventory', inventoryId, 'terraform'] as const;
const base = (p: number, inventoryId: number) => `/project/${p}/inventory/${inventoryId}/terraform`;

/** The aliases of a workspace (backend addresses); the server lists them to managers only. */
export const aliasesQuery = (p: number, inventoryId: number) =>
  queryOptions({
    queryKey: [...workspaceKey(p, inventoryId), 'aliases'],
    queryFn: () => api.get<TerraformAlias[]>(`${base(p, inventoryId)}/aliases`),
  });

/** Whether the workspace's tasks keep their state in Gantry's HTTP backend. */
export const backendQuery = (p: number, inventoryId: number) =>
  queryOptions({
    queryKey: [...workspaceKey(p, inventoryId), 'backend'],
    queryFn: () => api.get<TerraformBackendSettings>(`${base(p, inventoryId)}/backend`),
  });

/** Create, change the key of, rotate and delete a workspace's aliases; each reloads the list. */
export function useAliasMutations(p: number, inventoryId: number) {
  const qc = useQueryClient();
  const onSuccess = () => qc.invalidateQueries({ queryKey: aliasesQuery(p, inventoryId).queryKey });
  const url = `${base(p, inventoryId)}/aliases`;
  return {
    create: useMutation({
      mutationFn: (authKeyId: number) => api.post<TerraformAlias>(url, { auth_key_id: authKeyId }),
      onSuccess,
    }),
    update: useMutation({
      mutationFn: ({ id, authKeyId }: { id: string; authKeyId: number }) =>
        api.put(`${url}/${id}`, { auth_key_id: authKeyId }),
      onSuccess,
    }),
    rotate: useMutation({ mutationFn: (id: string) => api.post<TerraformAlias>(`${url}/${id}/rotate`), onSuccess }),
    remove: useMutation({ mutationFn: (id: string) => api.delete(`${url}/${id}`), onSuccess }),
  };
}

export function useSetBackend(p: number, inventoryId: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (enabled: boolean) => api.put<TerraformBackendSettings>(`${base(p, inventoryId)}/backend`, { enabled }),
    onSuccess: (data) => qc.setQueryData(backendQuery(p, inventoryId).queryKey, data),
  });
}

/** Deletes every state version of the workspace (owners and managers). */
export function usePurgeStates(p: number, inventoryId: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete(`${base(p, inventoryId)}/states`),
    onSuccess: () => qc.invalidateQueries({ queryKey: stateVersionsQuery(p, inventoryId).queryKey }),
  });
}

/** One version as terraform wrote it, secrets included: owners only (the server checks). */
export async function downloadState(p: number, inventoryId: number, stateId: number): Promise<void> {
  const file = await api.download(`${base(p, inventoryId)}/states/${stateId}/download`);
  saveFile(file.blob, file.fileName ?? `state-${stateId}.tfstate`);
}
