import type { InventoryInput } from '@gantry/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { projectKeys } from '../../../lib/project-queries';

export function useSaveInventory(projectId: number, id: number | null) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: InventoryInput) => {
      if (id) await api.put(`/project/${projectId}/inventory/${id}`, body);
      else await api.post(`/project/${projectId}/inventory`, body);
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: projectKeys.inventories(projectId) }),
  });
}
