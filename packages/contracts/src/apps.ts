import { z } from 'zod';

export const APP_IDS = ['ansible', 'terraform', 'tofu', 'bash', 'python', 'powershell', 'pulumi'] as const;
export const appIdSchema = z.enum(APP_IDS, { error: 'App is required' });
export type AppId = z.infer<typeof appIdSchema>;

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

export const appSchema = z.object({
  id: z.string(),
  title: z.string(),
  icon: z.string(),
  path: z.string(),
  priority: z.number(),
  args: z.string(),
  active: z.boolean(),
});
export type App = z.infer<typeof appSchema>;

/** Apps whose templates run a plan that may wait for confirmation. */
export function isTerraformApp(app: string): app is 'terraform' | 'tofu' {
  return app === 'terraform' || app === 'tofu';
}
