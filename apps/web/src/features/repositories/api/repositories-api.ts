import type { RepositoryInput } from '@gantry/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { projectKeys } from '../../../lib/project-queries';

export function useSaveRepository(projectId: number, id: number | null) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: RepositoryInput) => {
      if (id) await api.put(`/project/${projectId}/repositories/${id}`, body);
      else await api.post(`/project/${projectId}/repositories`, body);
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: projectKeys.repositories(projectId) }),
  });
}
