import type { TwoFactorPolicy, TwoFactorSettings } from '@gantry/contracts';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { keys } from '../../../lib/session';

const SETTINGS_URL = '/admin/settings/two-factor';

/** Who must use two-factor sign-in (admin only: others get a 403). */
export const twoFactorSettingsQuery = queryOptions({
  queryKey: ['security', 'two-factor'] as const,
  queryFn: () => api.get<TwoFactorSettings>(SETTINGS_URL),
});

/** The setting; `enabled` is false for non-admins, who would only be refused. */
export const useTwoFactorSettings = (enabled: boolean) => useQuery({ ...twoFactorSettingsQuery, enabled });

/**
 * Saves the requirement; the answer replaces the cached setting. The projects are asked for again:
 * an admin the new requirement covers who has no two-factor sign-in gets the enrolment screen now.
 */
export function useSaveTwoFactorPolicy() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (required: TwoFactorPolicy) => api.put<TwoFactorSettings>(SETTINGS_URL, { required }),
    onSuccess: async (saved) => {
      qc.setQueryData(twoFactorSettingsQuery.queryKey, saved);
      await qc.invalidateQueries({ queryKey: keys.projects });
    },
  });
}
