/** argv for script apps: the interpreter's own flags, then the script, then its arguments. */
export function scriptArgv(app: 'bash' | 'python' | 'powershell' | 'pulumi', script: string, args: string[]): string[] {
  switch (app) {
    case 'bash':
      return ['--', script, ...args];
    case 'python':
      return ['-u', '--', script, ...args];
    case 'powershell':
      return ['-NoProfile', '-NonInteractive', '-File', script, ...args];
    case 'pulumi':
      // Pulumi runs the project in its working directory (the template's playbook folder).
      return ['up', '--yes', '--non-interactive', ...args];
  }
}
