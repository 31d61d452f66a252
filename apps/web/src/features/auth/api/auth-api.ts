import { Messages, type CurrentUser, type LoginBody, type LoginInfo, type SecondFactors } from '@gantry/contracts';
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

/**
 * Which second steps the user waiting for one has (a code, a passkey, the recovery code): the
 * step shows only those. Asked afresh each time: a method may have been added or removed.
 */
export const secondFactorsQuery = queryOptions({
  queryKey: ['second-factors'] as const,
  queryFn: () => api.get<SecondFactors>('/auth/second-factors', { quiet401: true }),
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

/**
 * The second step passed: whatever was loaded (or failed) before belongs to the old state, unless
 * `keepQueries` (signing in again over a page, whose loaded data stays).
 */
function useSecondStep(send: (value: string) => Promise<void>, keepQueries: boolean) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: send,
    onSuccess: () => {
      if (!keepQueries) qc.removeQueries();
    },
  });
}

export function useVerify(keepQueries = false) {
  return useSecondStep((passcode) => api.post('/auth/verify', { passcode }, { quiet401: true }), keepQueries);
}

export function useRecovery(keepQueries = false) {
  return useSecondStep(
    (recovery_code) => api.post('/auth/recovery', { recovery_code }, { quiet401: true }),
    keepQueries,
  );
}

/** Leaves a session that waits for the code (back to the password form). */
export function abandonSession(): Promise<void> {
  return api.post('/auth/logout', undefined, { quiet401: true }).catch(() => undefined);
}
