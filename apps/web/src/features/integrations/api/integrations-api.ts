import type {
  ExtractValue,
  ExtractValueInput,
  Integration,
  IntegrationAlias,
  IntegrationInput,
  Matcher,
  MatcherInput,
} from '@gantry/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/**
 * Query keys of the feature. Everything sits under `['project', p, 'integrations']` so that
 * saving or deleting an integration can refresh the whole subtree at once.
 */
export const integrationKeys = {
  all: (p: number) => ['project', p, 'integrations'] as const,
  list: (p: number) => ['project', p, 'integrations', 'list'] as const,
  one: (p: number, id: number) => ['project', p, 'integrations', id] as const,
  /** `null` for the project-level aliases that reach every searchable integration. */
  aliases: (p: number, id: number | null) => ['project', p, 'integrations', id ?? 'project', 'aliases'] as const,
  matchers: (p: number, id: number) => ['project', p, 'integrations', id, 'matchers'] as const,
  values: (p: number, id: number) => ['project', p, 'integrations', id, 'values'] as const,
};

const base = (p: number) => `/project/${p}/integrations`;
const aliasesUrl = (p: number, id: number | null) => (id === null ? `${base(p)}/aliases` : `${base(p)}/${id}/aliases`);

export const integrationQueries = {
  list: (p: number) =>
    queryOptions({ queryKey: integrationKeys.list(p), queryFn: () => api.get<Integration[]>(base(p)) }),
  one: (p: number, id: number) =>
    queryOptions({ queryKey: integrationKeys.one(p, id), queryFn: () => api.get<Integration>(`${base(p)}/${id}`) }),
  aliases: (p: number, id: number | null) =>
    queryOptions({
      queryKey: integrationKeys.aliases(p, id),
      queryFn: () => api.get<IntegrationAlias[]>(aliasesUrl(p, id)),
    }),
  matchers: (p: number, id: number) =>
    queryOptions({
      queryKey: integrationKeys.matchers(p, id),
      queryFn: () => api.get<Matcher[]>(`${base(p)}/${id}/matchers`),
    }),
  values: (p: number, id: number) =>
    queryOptions({
      queryKey: integrationKeys.values(p, id),
      queryFn: () => api.get<ExtractValue[]>(`${base(p)}/${id}/values`),
    }),
};

/** Creates (id null) or updates an integration; resolves to its id. */
export function useSaveIntegration(p: number, id: number | null) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: IntegrationInput): Promise<number> => {
      if (id) {
        await api.put(`${base(p)}/${id}`, body);
        return id;
      }
      return (await api.post<Integration>(base(p), body)).id;
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: integrationKeys.all(p) }),
  });
}

/** Adding (no body: the server picks a random alias) and removing aliases of one integration or of the project. */
export function useAliasMutations(p: number, id: number | null) {
  const qc = useQueryClient();
  const done = () => qc.invalidateQueries({ queryKey: integrationKeys.aliases(p, id) });
  return {
    add: useMutation({ mutationFn: () => api.post<IntegrationAlias>(aliasesUrl(p, id)), onSuccess: done }),
    remove: useMutation({
      mutationFn: (aliasId: number) => api.delete(`${aliasesUrl(p, id)}/${aliasId}`),
      onSuccess: done,
    }),
  };
}

/** CRUD of a child list (matchers or values) of one integration. */
function useChildMutations<B>(p: number, id: number, segment: 'matchers' | 'values', key: readonly unknown[]) {
  const qc = useQueryClient();
  const done = () => qc.invalidateQueries({ queryKey: key });
  const url = `${base(p)}/${id}/${segment}`;
  return {
    save: useMutation({
      mutationFn: async ({ childId, body }: { childId: number | null; body: B }) => {
        if (childId) await api.put(`${url}/${childId}`, body);
        else await api.post(url, body);
      },
      onSuccess: done,
    }),
    remove: useMutation({ mutationFn: (childId: number) => api.delete(`${url}/${childId}`), onSuccess: done }),
  };
}

export const useMatcherMutations = (p: number, id: number) =>
  useChildMutations<MatcherInput>(p, id, 'matchers', integrationKeys.matchers(p, id));
export const useValueMutations = (p: number, id: number) =>
  useChildMutations<ExtractValueInput>(p, id, 'values', integrationKeys.values(p, id));

/** The address a sender posts to: the server's URL as is when absolute, else on this console's origin. */
export function aliasHref(alias: IntegrationAlias): string {
  return /^https?:\/\//i.test(alias.url) ? alias.url : `${window.location.origin}${alias.url}`;
}
