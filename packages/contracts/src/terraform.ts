import { z } from 'zod';
import { coded } from './coded.js';
import { ErrorCodes } from './errors.js';
import { requiredMessage, requiredName } from './fields.js';
import { planConfirmationSchema, planSummarySchema } from './terraform-plan.js';

/** One stored version of a Terraform/OpenTofu workspace's state, as listed. */
export const terraformStateVersionSchema = z.object({
  id: z.number().int(),
  task_id: z.number().int().nullable(),
  /** The final status of the task that wrote it ('' when someone wrote it through an alias). */
  status: z.string(),
  created: z.string(),
  /** The state's own serial and lineage (null for versions stored before they were recorded). */
  serial: z.number().int().nullable(),
  lineage: z.string().nullable(),
  /** How many resource instances it holds (as `terraform state list` counts them). */
  resource_count: z.number().int().nullable(),
  /** The first characters of the alias that wrote it through the HTTP backend; null for a task. */
  alias_hint: z.string().nullable(),
  /** The plan (of the task that wrote it) that produced this version; null when none was recorded. */
  plan_summary: planSummarySchema.nullable().optional(),
  /** Who confirmed that plan; null when auto-approved or written through an alias. */
  confirmed_by: planConfirmationSchema.nullable().optional(),
});
export type TerraformStateVersion = z.infer<typeof terraformStateVersionSchema>;

/** One version with its state: JSON text with sensitive values replaced by "(sensitive)". */
export const terraformStateSchema = terraformStateVersionSchema.extend({ state: z.string() });
export type TerraformState = z.infer<typeof terraformStateSchema>;

/** The placeholder for a redacted value in a state. */
export const SENSITIVE_PLACEHOLDER = '(sensitive)';

/** The "New workspace" form of a template's state tab. */
export const workspaceFormSchema = z.object({
  name: requiredName('Name'),
  ssh_key_id: z.coerce.number(requiredMessage('Key')).int(requiredMessage('Key')).positive(requiredMessage('Key')),
});
export type WorkspaceFormInput = z.input<typeof workspaceFormSchema>;

const workspaceRequired = coded('template_required', ErrorCodes.fieldRequired, { label_key: 'workspace' });

/** The "Attach workspace" form: an inventory must be chosen. */
export const workspaceAttachSchema = z.object({
  inventory_id: z.coerce.number(workspaceRequired).int(workspaceRequired).positive(workspaceRequired),
});
