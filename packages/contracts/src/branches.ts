/** The message for any branch name that the rule below refuses. */
export const INCORRECT_BRANCH = 'Incorrect branch';

/**
 * A branch name as `git check-ref-format --branch` accepts it, within a conservative character
 * set (letters, digits, `. _ / + -`): no `..`, no `@{` or lone `@` (not in the set at all), no
 * component that starts with `.` or ends with `.lock`, no `//`, no leading `-` or `/`, no
 * trailing `/` or `.`, not `HEAD`. Such a name can only ever mean a branch to git, never an
 * option, a revision expression or a path outside the refs.
 */
export function isValidBranch(name: string): boolean {
  if (!name || name.length > 255 || name === 'HEAD') return false;
  if (!/^[A-Za-z0-9._/+-]+$/.test(name)) return false;
  if (name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return false;
  if (name.includes('..') || name.includes('//')) return false;
  return name.split('/').every((c) => !c.startsWith('.') && !c.endsWith('.lock'));
}
