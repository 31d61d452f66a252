import {
  integrationTaskParamsSchema,
  type ExtractValue,
  type Integration,
  type IntegrationAlias,
  type IntegrationAuthMethodAnswer,
  type IntegrationTaskParams,
  type Matcher,
} from '@gantry/contracts';
import type { AliasRow, ExtractValueRow, IntegrationWithTemplate, MatcherRow } from './integrations.repository.js';

/** The stored run options, read leniently: a damaged row shows as no options rather than a 500. */
export function integrationTaskParams(text: string): IntegrationTaskParams {
  try {
    const parsed = integrationTaskParamsSchema.safeParse(JSON.parse(text || '{}'));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** The API shape of an integration: the secret is only ever named by its key id. */
export function presentIntegration(r: IntegrationWithTemplate): Integration {
  return {
    id: r.id,
    project_id: r.project_id,
    name: r.name,
    // 0, not null, for a workflow's integration: Semaphore's clients read a number (docs/semaphore-compatibility.md).
    template_id: r.template_id ?? 0,
    workflow_id: r.workflow_id,
    tpl_name: r.tpl_name,
    // Semaphore's value for none: its console then shows None and no secret field.
    auth_method: r.auth_method === 'none' ? '' : (r.auth_method as IntegrationAuthMethodAnswer),
    auth_header: r.auth_header,
    auth_secret_id: r.auth_secret_id,
    searchable: r.searchable === 1,
    task_params: integrationTaskParams(r.task_params),
  };
}

/** `webHost` without a trailing slash, or '' for a URL relative to the server. */
export function presentAlias(r: AliasRow, webHost: string): IntegrationAlias {
  return {
    id: r.id,
    project_id: r.project_id,
    integration_id: r.integration_id,
    alias: r.alias,
    url: `${webHost}/api/integrations/${r.alias}`,
  };
}

export function presentMatcher(r: MatcherRow): Matcher {
  return {
    id: r.id,
    integration_id: r.integration_id,
    name: r.name,
    match_type: r.match_type as Matcher['match_type'],
    body_data_type: r.body_data_type as Matcher['body_data_type'],
    key: r.key,
    method: r.method as Matcher['method'],
    value: r.value,
  };
}

export function presentExtractValue(r: ExtractValueRow): ExtractValue {
  return {
    id: r.id,
    integration_id: r.integration_id,
    name: r.name,
    value_source: r.value_source as ExtractValue['value_source'],
    body_data_type: r.body_data_type as ExtractValue['body_data_type'],
    key: r.key,
    variable_type: r.variable_type as ExtractValue['variable_type'],
    variable: r.variable,
  };
}
