import { Messages, type CurrentUser, type LoginBody, type LoginInfo } from '@gantry/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, api } from '../../../lib/api-client';
import { keys } from '../../../lib/session';

export const loginInfoQuery = queryOptions({
  queryKey: keys.loginInfo,
  queryFn: () => api.get<LoginInfo>('/auth/login', { quiet401: true }),
});

/** Whether this browser is already signed in: the sign-in page then leads into the app. */
export const signedInQuery = queryOptions({
  queryKey: ['login-session'] as const,
  queryFn: () => api.get<CurrentUser>('/user', { quiet401: true }),
  retry: false,
  gcTime: 0,
});

/** Whether a failure means "signed in with the password, the second step is still to do". */
export function isTotpRequired(e: unknown): boolean {
  return e instanceof ApiError && e.status === 401 && e.body?.error === Messages.totpRequired;
}

/**
 * Signs in with the password, then asks whether the session still needs the second step:
 * answers 'verify' when it does (the server opened a session waiting for the code).
 */
export function useLogin() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: LoginBody): Promise<'signed-in' | 'verify'> => {
      await api.post('/auth/login', body, { quiet401: true });
      return api.get('/user', { quiet401: true }).then(
        () => 'signed-in' as const,
        (e: unknown) => {
          if (isTotpRequired(e)) return 'verify' as const;
          throw e;
        },
      );
    },
    onSuccess: () => qc.removeQueries(),
  });
}

/** The second step passed: whatever was loaded (or failed) before belongs to the old state. */
function useSecondStep(send: (value: string) => Promise<void>) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: send, onSuccess: () => qc.removeQueries() });
}

export function useVerify() {
  return useSecondStep((passcode) => api.post('/auth/verify', { passcode }, { quiet401: true }));
}

export function useRecovery() {
  return useSecondStep((recovery_code) => api.post('/auth/recovery', { recovery_code }, { quiet401: true }));
}

/** Leaves a session that waits for the code (back to the password form). */
export function abandonSession(): Promise<void> {
  return api.post('/auth/logout', undefined, { quiet401: true }).catch(() => undefined);
}
