import type { Passkey, PasskeyOptions, PasskeyProofBody } from '@gantry/contracts';
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

const passkeysKey = ['user', 'passkeys'] as const;

/** Whether this browser can use passkeys at all (what the library's own check tests, without loading it). */
export function passkeysSupported(): boolean {
  return typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function';
}

/** One's own passkeys (never another user's). */
export const passkeysQuery = queryOptions({
  queryKey: passkeysKey,
  queryFn: () => api.get<Passkey[]>('/user/passkeys'),
});

/** Asks the browser (and its authenticator) to answer a challenge with one of this site's passkeys. */
async function answer(optionsUrl: string, opts?: { quiet401: boolean }) {
  const options = await api.post<PasskeyOptions>(optionsUrl, undefined, opts);
  // The WebAuthn library loads on first use: the sign-in page shows without it.
  const { startAuthentication } = await import('@simplewebauthn/browser');
  return startAuthentication({ optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON });
}

/** Makes a new passkey in the browser and registers it under `name`. */
export function useAddPasskey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ name, password }: { name: string; password: string }) => {
      // The current password first: an open session alone does not add a way in.
      const options = await api.post<PasskeyOptions>('/user/passkeys/options', { password });
      const { startRegistration } = await import('@simplewebauthn/browser');
      const response = await startRegistration({
        optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON,
      });
      return api.post<Passkey>('/user/passkeys', { name, response });
    },
    onSettled: () => qc.invalidateQueries({ queryKey: passkeysKey }),
  });
}

export function useRenamePasskey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, name }: { id: number; name: string }) => api.put(`/user/passkeys/${id}`, { name }),
    onSettled: () => qc.invalidateQueries({ queryKey: passkeysKey }),
  });
}

/** Removes a passkey with the current password, or (`'passkey'`) with the answer of one of one's passkeys. */
export function useRemovePasskey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, proof }: { id: number; proof: { password: string } | 'passkey' }) => {
      // The browser's answer goes as it is; the server checks its shape (PasskeyProofBody).
      const body =
        proof === 'passkey'
          ? { assertion: await answer('/user/passkeys/proof/options') }
          : (proof satisfies NonNullable<PasskeyProofBody>);
      return api.delete(`/user/passkeys/${id}`, body);
    },
    onSettled: () => qc.invalidateQueries({ queryKey: passkeysKey }),
  });
}

/** Passwordless sign-in: any passkey of this site, chosen in the browser. */
export function usePasskeySignIn() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      const response = await answer('/auth/passkey/login/options', { quiet401: true });
      await api.post('/auth/passkey/login', { response }, { quiet401: true });
    },
    onSuccess: () => qc.removeQueries(),
  });
}

/**
 * The second sign-in step with a passkey, for a session that waits for it. `keepQueries`: signing
 * in again over a page (the page's loaded data stays; only the sign-in page starts afresh).
 */
export function usePasskeyStep(keepQueries = false) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      const response = await answer('/auth/passkey/options', { quiet401: true });
      await api.post('/auth/passkey/verify', { response }, { quiet401: true });
    },
    onSuccess: () => {
      if (!keepQueries) qc.removeQueries();
    },
  });
}
