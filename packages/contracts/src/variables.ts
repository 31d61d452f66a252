const RESERVED = new Set(['PATH', 'HOME', 'IFS', 'ENV', 'BASH_ENV', 'PYTHONPATH', 'PYTHONSTARTUP', 'NODE_OPTIONS', 'PERL5OPT']);

/**
 * Names that a task's variables (survey answers, webhook values, extra variables) may not take as
 * environment variables: they would steer the task process itself (search path, shell or
 * interpreter start-up, dynamic loader) or impersonate Gantry's own GANTRY_* variables.
 */
export function reservedVariableProblem(name: string): string | null {
  const upper = name.toUpperCase();
  if (RESERVED.has(upper) || upper.startsWith('GANTRY_') || upper.startsWith('LD_')) return `Variable ${name} is reserved`;
  return null;
}
