import {
  CHOICE_SURVEY_TYPES,
  cascadeOptions,
  type SurveyOption,
  type SurveyOptions,
  type SurveyVar,
} from '@gantry/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api } from '../../lib/api-client';
import { codeText, errorText } from '../../lib/error-text';

/** How long read options are reused: as long as the server caches a URL's or an inventory's. */
const OPTIONS_STALE_MS = 60_000;

/** The options of a parameter whose options the server reads (a URL, an inventory's hosts or groups). */
export function surveyOptionsQuery(projectId: number, templateId: number, name: string, inventoryId: number | null) {
  const query = inventoryId ? `?inventory_id=${inventoryId}` : '';
  return queryOptions({
    queryKey: ['project', projectId, 'templates', templateId, 'survey', name, 'options', inventoryId] as const,
    queryFn: () =>
      api.get<SurveyOptions>(
        `/project/${projectId}/templates/${templateId}/survey/${encodeURIComponent(name)}/options${query}`,
      ),
    staleTime: OPTIONS_STALE_MS,
  });
}

/**
 * The options a choice parameter offers now: its static `values` without a source; a cascade's
 * from the parent's answer (computed here, as the server checks it: they follow each change of
 * the parent at once); a URL's or an inventory's from the server. `error`: why the server could not
 * read them (in the user's language), the options then being the last good ones it has.
 */
export function useSurveyOptions(args: {
  projectId: number;
  templateId: number;
  variable: SurveyVar;
  /** Answers given so far, for a `parameter` (cascading) source. */
  answers: Record<string, unknown>;
  /** The inventory chosen at run time, if any (else the template's). */
  inventoryId?: number | null;
}): { options: SurveyOption[]; error: string | null; loading: boolean } {
  const { projectId, templateId, variable, answers } = args;
  const source = CHOICE_SURVEY_TYPES.includes(variable.type) ? variable.options_source : null;
  const remote = source?.kind === 'url' || source?.kind === 'inventory_hosts' || source?.kind === 'inventory_groups';
  // A URL's options do not depend on the inventory: one query for any choice of it.
  const inventoryId = source?.kind === 'url' ? null : (args.inventoryId ?? null);
  const read = useQuery({ ...surveyOptionsQuery(projectId, templateId, variable.name, inventoryId), enabled: remote });
  const parent = source?.kind === 'parameter' ? answers[source.parameter] : undefined;
  const cascade = useMemo(
    () => (source?.kind === 'parameter' ? cascadeOptions(source, { [source.parameter]: parent }) : null),
    // The parent's answer by value: a new answers object with the same answer keeps the list.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [source, JSON.stringify(parent ?? null)],
  );
  if (!source) return { options: variable.values, error: null, loading: false };
  if (cascade) return { options: cascade, error: null, loading: false };
  if (read.error) return { options: [], error: errorText(read.error), loading: false };
  const data = read.data;
  const error = data?.error ? (codeText({ code: data.code }) ?? data.error) : null;
  return { options: data?.options ?? [], error, loading: read.isPending };
}
