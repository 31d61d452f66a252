import type { LoginBody, LoginInfo } from '@gantry/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { keys } from '../../../lib/session';

export const loginInfoQuery = queryOptions({
  queryKey: keys.loginInfo,
  queryFn: () => api.get<LoginInfo>('/auth/login', { quiet401: true }),
});

export function useLogin() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: LoginBody) => api.post('/auth/login', body, { quiet401: true }),
    onSuccess: () => qc.invalidateQueries(),
  });
}

export function useVerify() {
  return useMutation({ mutationFn: (passcode: string) => api.post('/auth/verify', { passcode }, { quiet401: true }) });
}

export function useRecovery() {
  return useMutation({ mutationFn: (recovery_code: string) => api.post('/auth/recovery', { recovery_code }, { quiet401: true }) });
}
