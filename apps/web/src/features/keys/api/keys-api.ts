import type { KeyInput } from '@gantry/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { projectKeys } from '../../../lib/project-queries';

export function useSaveKey(projectId: number, id: number | null) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: KeyInput) => {
      if (id) await api.put(`/project/${projectId}/keys/${id}`, body);
      else await api.post(`/project/${projectId}/keys`, body);
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: projectKeys.keys(projectId) }),
  });
}
