import { z } from 'zod';
import { coded } from './coded.js';
import { ErrorCodes } from './errors.js';
import { hasControlCharacters, requiredMessage, requiredString, requiredText } from './fields.js';

/** The built-in ("default") apps; admins may reconfigure them but never delete them. */
export const APP_IDS = ['ansible', 'terraform', 'tofu', 'bash', 'python', 'powershell', 'pulumi'] as const;
export type AppId = (typeof APP_IDS)[number];

export function isBuiltinApp(id: string): id is AppId {
  return (APP_IDS as readonly string[]).includes(id);
}

/** An app id: a lowercase letter, then 1 to 30 lowercase letters, digits, '-' or '_'. */
export const APP_ID_PATTERN = /^[a-z][a-z0-9_-]{1,30}$/;
export const APP_ID_MESSAGE = 'ID must be 2 to 31 lowercase letters, digits, - or _, starting with a letter';

/** A template's app: a built-in or a custom app's id (the server checks that it exists). */
export const appIdSchema = z
  .string(requiredMessage('App'))
  .trim()
  .min(1, requiredMessage('App'))
  .regex(APP_ID_PATTERN, coded('App not found', ErrorCodes.appNotFound));

/** The executable each app runs, looked up on PATH unless the app's path says otherwise. */
export const APP_EXECUTABLES: Record<AppId, string> = {
  ansible: 'ansible-playbook',
  terraform: 'terraform',
  tofu: 'tofu',
  bash: 'bash',
  python: 'python3',
  powershell: 'pwsh',
  pulumi: 'pulumi',
};

export const APP_TITLES: Record<AppId, string> = {
  ansible: 'Ansible Playbook',
  terraform: 'Terraform Code',
  tofu: 'OpenTofu Code',
  bash: 'Bash Script',
  python: 'Python Script',
  powershell: 'PowerShell Script',
  pulumi: 'Pulumi Code',
};

/**
 * Whether an app's configured arguments are used: script apps (built-in or custom) get them
 * before the script; ansible, terraform and tofu build their own command lines.
 */
export function appTakesArgs(id: string): boolean {
  return id !== 'ansible' && id !== 'terraform' && id !== 'tofu';
}

export const appSchema = z.object({
  id: z.string(),
  title: z.string(),
  icon: z.string(),
  /** An executable name looked up on the server's PATH, or an absolute path. */
  path: z.string(),
  priority: z.number().int(),
  /** Extra argv given before the script (script apps only). */
  args: z.array(z.string()),
  /** Whether templates of this app may run: set by an admin, or else whether `path` is found. */
  active: z.boolean(),
  /** A default app: it cannot be deleted. */
  builtin: z.boolean(),
  /** Whether `path` names an executable on this server. */
  found: z.boolean(),
});
export type App = z.infer<typeof appSchema>;

export const APP_PRIORITY_LIMIT = 1_000_000;

/** Why an app path is unusable, or null: a plain executable name, or an absolute path. */
const APP_PATH_INVALID = coded('Path must be an executable name or an absolute path', ErrorCodes.appPathInvalid);

export function appPathProblem(p: string): string | null {
  const bad = APP_PATH_INVALID.error;
  if (p.length > 1024 || hasControlCharacters(p) || p.startsWith('-')) return bad;
  if (p.includes('/')) {
    if (!p.startsWith('/') || p.endsWith('/')) return bad;
    const parts = p.split('/').slice(1);
    if (parts.some((s) => s === '' || s === '.' || s === '..')) return bad;
    return null;
  }
  return p === '.' || p === '..' ? bad : null;
}

const argsMessage = coded('Arguments must be a JSON list of strings', ErrorCodes.argumentsNotList);
const priorityRange = coded(
  `Priority must be between -${APP_PRIORITY_LIMIT} and ${APP_PRIORITY_LIMIT}`,
  ErrorCodes.outOfRange,
  {
    label_key: 'priority',
    min: -APP_PRIORITY_LIMIT,
    max: APP_PRIORITY_LIMIT,
  },
);
const priorityInteger = coded('Priority must be an integer', ErrorCodes.outOfRange, {
  label_key: 'priority',
  min: -APP_PRIORITY_LIMIT,
  max: APP_PRIORITY_LIMIT,
});
const activeFlag = coded('Active must be true or false', ErrorCodes.mustBeTrueOrFalse, { label_key: 'active' });

/** Editable fields of an app (PUT or POST /apps/{id}); the id never changes. */
export const appUpdateSchema = z.object({
  title: requiredString('Title', 100),
  icon: z
    .string()
    .trim()
    .max(40, coded('Icon is too long', ErrorCodes.tooLong, { label_key: 'icon', max: 40 }))
    .regex(/^[a-z0-9-]*$/, coded('Icon must be a name of lowercase letters, digits and -', ErrorCodes.iconInvalid))
    .default(''),
  path: requiredText('Path', 1024).superRefine((p, ctx) => {
    const problem = appPathProblem(p);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, params: APP_PATH_INVALID.params });
  }),
  priority: z.preprocess(
    (v) => {
      if (v === '' || v === null || v === undefined) return 0;
      if (typeof v === 'string') return /^-?\d+$/.test(v.trim()) ? Number(v.trim()) : Number.NaN;
      return v;
    },
    z
      .number(priorityInteger)
      .int(priorityInteger)
      .min(-APP_PRIORITY_LIMIT, priorityRange)
      .max(APP_PRIORITY_LIMIT, priorityRange),
  ),
  args: z
    .array(
      z
        .string(argsMessage)
        .refine(
          (a) => !hasControlCharacters(a),
          coded('Arguments must not contain control characters', ErrorCodes.controlCharacters, {
            label_key: 'arguments',
          }),
        ),
      argsMessage,
    )
    .max(50, coded('At most 50 arguments', ErrorCodes.tooManyArguments, { max: 50 }))
    .default([]),
  /** Semaphore clients send the whole app: an on/off choice here is kept like POST /apps/{id}/active. */
  active: z.boolean(activeFlag).optional(),
});
export type AppUpdate = z.input<typeof appUpdateSchema>;

/** A custom app (POST /apps). */
export const appCreateSchema = z.object({
  id: z
    .string(requiredMessage('ID'))
    .trim()
    .min(1, requiredMessage('ID'))
    .regex(APP_ID_PATTERN, coded(APP_ID_MESSAGE, ErrorCodes.appIdInvalid)),
  ...appUpdateSchema.shape,
});
export type AppCreate = z.input<typeof appCreateSchema>;

export const appActiveSchema = z.object({ active: z.boolean(activeFlag) });

/** Apps whose templates run a plan that may wait for confirmation. */
export function isTerraformApp(app: string): app is 'terraform' | 'tofu' {
  return app === 'terraform' || app === 'tofu';
}
