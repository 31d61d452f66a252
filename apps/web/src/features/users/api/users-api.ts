import type { PasswordChange, TotpConfirm, TotpCreated, TotpEnable, TotpRemove, User, UserCreate, UserUpdate } from '@gantry/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { keys } from '../../../lib/session';

export const usersQuery = queryOptions({ queryKey: keys.users, queryFn: () => api.get<User[]>('/users') });
export const userByIdQuery = (id: number) => queryOptions({ queryKey: [...keys.users, id], queryFn: () => api.get<User>(`/users/${id}`) });

export function useSaveUser(id: number | null) {
  const invalidate = useInvalidateUser();
  return useMutation({
    mutationFn: async (body: UserCreate | UserUpdate): Promise<void> => {
      if (id) await api.put(`/users/${id}`, body);
      else await api.post<User>('/users', body);
    },
    onSuccess: invalidate,
  });
}

export function useDeleteUser() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: (id: number) => api.delete(`/users/${id}`), onSuccess: () => qc.invalidateQueries({ queryKey: keys.users }) });
}

export function useChangePassword(id: number) {
  return useMutation({ mutationFn: (body: PasswordChange) => api.post(`/users/${id}/password`, body) });
}

/** The setup QR code of the signed-in user's own TOTP method (an image URL; the server refuses others). */
export const totpQrUrl = (userId: number, totpId: number) => `/api/users/${userId}/2fas/totp/${totpId}/qr`;

/** A change to a user shows in the users list and, when it is you, in the current user. */
function useInvalidateUser() {
  const qc = useQueryClient();
  return async () => {
    await qc.invalidateQueries({ queryKey: keys.users });
    await qc.invalidateQueries({ queryKey: keys.user });
  };
}

/** `body.password` is needed when the method is your own; an admin enabling another's sends none. */
export function useEnableTotp(userId: number) {
  const invalidate = useInvalidateUser();
  return useMutation({
    mutationFn: (body?: NonNullable<TotpEnable>) => api.post<TotpCreated>(`/users/${userId}/2fas/totp`, body),
    onSuccess: invalidate,
  });
}

/** Turns your own new method on with a current code from the authenticator app. */
export function useConfirmTotp(userId: number) {
  const invalidate = useInvalidateUser();
  return useMutation({
    mutationFn: ({ totpId, code }: { totpId: number } & TotpConfirm) => api.post(`/users/${userId}/2fas/totp/${totpId}/confirm`, { code }),
    onSuccess: invalidate,
  });
}

/** `proof` (password or current code) is needed when the method is your own; an admin removing another's sends none. */
export function useDisableTotp(userId: number) {
  const invalidate = useInvalidateUser();
  return useMutation({
    mutationFn: ({ totpId, proof }: { totpId: number; proof?: NonNullable<TotpRemove> }) => api.delete(`/users/${userId}/2fas/totp/${totpId}`, proof),
    onSuccess: invalidate,
  });
}
