import type { PasswordChange, User, UserCreate, UserUpdate } from '@gantry/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { keys } from '../../../lib/session';

export const usersQuery = queryOptions({ queryKey: keys.users, queryFn: () => api.get<User[]>('/users') });
export const userByIdQuery = (id: number) => queryOptions({ queryKey: [...keys.users, id], queryFn: () => api.get<User>(`/users/${id}`) });

export function useSaveUser(id: number | null) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: UserCreate | UserUpdate): Promise<void> => {
      if (id) await api.put(`/users/${id}`, body);
      else await api.post<User>('/users', body);
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: keys.users });
      await qc.invalidateQueries({ queryKey: keys.user });
    },
  });
}

export function useDeleteUser() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: (id: number) => api.delete(`/users/${id}`), onSuccess: () => qc.invalidateQueries({ queryKey: keys.users }) });
}

export function useChangePassword(id: number) {
  return useMutation({ mutationFn: (body: PasswordChange) => api.post(`/users/${id}/password`, body) });
}
