import type { Template, TemplateType } from '@gantry/contracts';
import { approvalPolicySchema, surveyVarFieldsSchema, templateTaskParamsSchema } from '@gantry/contracts';
import { z } from 'zod';
import { templateIdList } from '../../db/template-lists.js';
import { presentTask } from '../tasks/tasks.presenter.js';
import type { TemplateWithExtras } from './templates.repository.js';

// Read without the settings' checks: a parameter saved before a rule existed must not break every read.
const surveyList = z.array(surveyVarFieldsSchema);

/** A Terraform/OpenTofu template answers its worst drift finding (null when never checked). */
export function presentTemplate(row: TemplateWithExtras & { drift?: Template['drift'] }): Template {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    description: row.description,
    type: row.type as TemplateType,
    app: row.app,
    playbook: row.playbook,
    inventory_id: row.inventory_id,
    repository_id: row.repository_id,
    environment_id: row.environment_id,
    environment_ids: templateIdList(row.environment_id, row.environment_ids),
    inventory_ids: templateIdList(row.inventory_id, row.inventory_ids),
    view_id: row.view_id,
    git_branch: row.git_branch,
    runner_tag: row.runner_tag,
    start_version: row.start_version,
    build_template_id: row.build_template_id,
    autorun: row.autorun === 1,
    arguments: row.arguments,
    allow_override_args_in_task: row.allow_override_args_in_task === 1,
    allow_override_branch_in_task: row.allow_override_branch_in_task === 1,
    allow_extra_vars_in_task: row.allow_extra_vars_in_task === 1,
    suppress_success_alerts: row.suppress_success_alerts === 1,
    survey_vars: surveyList.parse(JSON.parse(row.survey_vars)),
    vaults: row.vaults.map((v) => ({
      id: v.id,
      name: v.name,
      type: v.type === 'script' ? 'script' : 'password',
      vault_key_id: v.vault_key_id,
      script: v.script,
    })),
    task_params: templateTaskParamsSchema.parse(JSON.parse(row.task_params)),
    approval_policy: row.approval_policy ? approvalPolicySchema.parse(JSON.parse(row.approval_policy)) : null,
    last_task_id: row.last_task?.id ?? null,
    last_task: row.last_task ? presentTask(row.last_task) : null,
    ...(row.app === 'terraform' || row.app === 'tofu' ? { drift: row.drift ?? null } : {}),
  };
}
