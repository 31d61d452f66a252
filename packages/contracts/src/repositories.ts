import { z } from 'zod';
import { coded, codedIssue } from './coded.js';
import { ErrorCodes } from './errors.js';
import {
  boundedText,
  hasControlCharacters,
  requiredIssue,
  requiredMessage,
  requiredName,
  requiredText,
  typedFields,
  URL_MAX,
} from './fields.js';
import { INCORRECT_BRANCH, isValidBranch } from './branches.js';

const ALLOWED_SCHEMES = new Set(['git', 'file', 'ssh', 'http', 'https']);

/**
 * Kind of a repository URL: `local` (starts with /), `remote` (git, file, ssh, http, https, or no
 * scheme, which means ssh as in git@host:org/repo.git), or null when git must not be given it
 * (other schemes, remote helpers such as ext::, option-like or control characters).
 */
export function gitUrlKind(url: string): 'local' | 'remote' | null {
  if (!url || url.startsWith('-') || hasControlCharacters(url) || /\s/.test(url)) return null;
  if (url.startsWith('/')) return 'local';
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*::/.test(url)) return null;
  const scheme = url.match(/^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//)?.[1];
  if (scheme) return ALLOWED_SCHEMES.has(scheme.toLowerCase()) && url.length > scheme.length + 3 ? 'remote' : null;
  // scp-like ssh: [user@]host:path
  return /^([^@/:]+@)?[^@/:]+:.+$/.test(url) ? 'remote' : null;
}

export function isLocalGitUrl(url: string): boolean {
  return gitUrlKind(url.trim()) === 'local';
}

export const repositorySchema = z.object({
  id: z.number().int(),
  project_id: z.number().int(),
  name: z.string(),
  git_url: z.string(),
  git_branch: z.string(),
  ssh_key_id: z.number().int(),
});
export type Repository = z.infer<typeof repositorySchema>;

export const repositoryInputSchema = z
  .object({
    name: requiredName('Name'),
    git_url: requiredText('Repository URL', URL_MAX).refine(
      (u) => gitUrlKind(u) !== null,
      coded('Incorrect URL', ErrorCodes.incorrectUrl),
    ),
    git_branch: boundedText('Branch').default(''),
    ssh_key_id: z.coerce
      .number(requiredMessage('Access key'))
      .int(requiredMessage('Access key'))
      .positive(requiredMessage('Access key')),
  })
  .superRefine(
    (r, ctx) => {
      if (gitUrlKind(r.git_url) === 'local') return;
      if (!r.git_branch) {
        ctx.addIssue({
          code: 'custom',
          path: ['git_branch'],
          ...requiredIssue('Branch'),
        });
      } else if (!isValidBranch(r.git_branch)) {
        ctx.addIssue({
          code: 'custom',
          path: ['git_branch'],
          ...codedIssue(INCORRECT_BRANCH, ErrorCodes.incorrectBranch),
        });
      }
    },
    // Also when other fields failed (a missing name or key): a form learns every problem at once.
    { when: typedFields('git_url', 'git_branch') },
  )
  .transform((r) => (gitUrlKind(r.git_url) === 'local' ? { ...r, git_branch: '' } : r));
export type RepositoryInput = z.input<typeof repositoryInputSchema>;
