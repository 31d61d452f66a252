import type { SurveyOption, SurveyVar } from '@gantry/contracts';

/**
 * The options a choice parameter offers now. STUB (to be replaced by the dynamic-options work):
 * static `values` only.
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
  return { options: args.variable.values, error: null, loading: false };
}
