import { CliError } from './cli-error.js';
import { APPLY_OPTIONS, EXPORT_OPTIONS } from './config-as-code/config-command.js';
import { LOGIN_OPTIONS } from './login-command.js';
import { RESOURCE_OPTIONS } from './resource-command.js';
import { RESOURCE_VERBS, RESOURCES } from './resources.js';
import { RUN_OPTIONS } from './run-command.js';
import { WORKFLOW_RUN_OPTIONS } from './workflow-run-command.js';

interface Group {
  commands: string[];
  subcommands: string[];
  flags: string[];
}

const flagsOf = (options: object) => Object.keys(options).map((k) => `--${k}`);

/** Every command of the binary with its subcommands and flags; the client's come from their own option tables. */
const GROUPS: Group[] = [
  {
    commands: RESOURCES.filter((r) => !r.moreVerbs).map((r) => r.command),
    subcommands: [...RESOURCE_VERBS],
    flags: flagsOf(RESOURCE_OPTIONS),
  },
  // Workflows also run (`workflows run P/W --follow`): the flags of both.
  ...RESOURCES.filter((r) => r.moreVerbs).map((r) => ({
    commands: [r.command],
    subcommands: [...RESOURCE_VERBS, ...r.moreVerbs!],
    flags: [...new Set([...flagsOf(RESOURCE_OPTIONS), ...flagsOf(WORKFLOW_RUN_OPTIONS)])],
  })),
  { commands: ['run'], subcommands: [], flags: flagsOf(RUN_OPTIONS) },
  { commands: ['login'], subcommands: [], flags: flagsOf(LOGIN_OPTIONS) },
  { commands: ['logout'], subcommands: [], flags: ['--profile', '--output'] },
  { commands: ['apply'], subcommands: [], flags: flagsOf(APPLY_OPTIONS) },
  { commands: ['export'], subcommands: [], flags: flagsOf(EXPORT_OPTIONS) },
  { commands: ['completion'], subcommands: ['bash', 'zsh', 'fish'], flags: [] },
  {
    commands: ['user'],
    subcommands: ['add', 'list', 'change-by-login', 'delete'],
    flags: ['--login', '--name', '--email', '--password', '--admin'],
  },
  {
    commands: ['project'],
    subcommands: ['export', 'import'],
    flags: ['--id', '--out', '--format', '--file', '--owner'],
  },
  { commands: ['workflow'], subcommands: ['run'], flags: ['--project', '--workflow', '--as', '--wait'] },
  { commands: ['audit'], subcommands: ['verify'], flags: [] },
  { commands: ['runner'], subcommands: ['start'], flags: [] },
  { commands: ['rekey'], subcommands: [], flags: ['--new-key', '--new-key-file'] },
  { commands: ['server', 'migrate', 'version', 'help'], subcommands: [], flags: [] },
];
const COMMANDS = GROUPS.flatMap((g) => g.commands);
const FILE_FLAGS = ['--file', '--secret-file', '--out', '--new-key-file'];

/** `gantry completion bash|zsh|fish`: a script to source (or install) for that shell. */
export function completionScript(shell: string | undefined): string {
  if (shell === 'bash') return bash();
  if (shell === 'zsh') return zsh();
  if (shell === 'fish') return fish();
  throw new CliError('Usage: gantry completion bash|zsh|fish');
}

function bash(): string {
  const cases = GROUPS.map(
    (g) => `    ${g.commands.join('|')}) subs="${g.subcommands.join(' ')}"; flags="${g.flags.join(' ')}" ;;`,
  ).join('\n');
  return `# gantry completion for bash: source <(gantry completion bash)
_gantry() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" subs="" flags=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${COMMANDS.join(' ')}" -- "$cur"))
    return
  fi
  case "$prev" in
    ${FILE_FLAGS.join('|')}) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --output) COMPREPLY=($(compgen -W "table json" -- "$cur")); return ;;
  esac
  case "\${COMP_WORDS[1]}" in
${cases}
  esac
  if [ "$COMP_CWORD" -eq 2 ] && [ -n "$subs" ]; then
    COMPREPLY=($(compgen -W "$subs" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
  fi
}
complete -o default -F _gantry gantry
`;
}

function zsh(): string {
  const cases = GROUPS.map(
    (g) => `    ${g.commands.join('|')}) subs=(${g.subcommands.join(' ')}); flags=(${g.flags.join(' ')}) ;;`,
  ).join('\n');
  return `#compdef gantry
# gantry completion for zsh: source <(gantry completion zsh) after compinit
_gantry() {
  local -a subs flags
  if (( CURRENT == 2 )); then
    compadd -- ${COMMANDS.join(' ')}
    return
  fi
  case "\${words[CURRENT-1]}" in
    ${FILE_FLAGS.join('|')}) _files; return ;;
    --output) compadd -- table json; return ;;
  esac
  case "\${words[2]}" in
${cases}
  esac
  if (( CURRENT == 3 && \${#subs} )); then
    compadd -- $subs
  else
    compadd -- $flags
  fi
}
compdef _gantry gantry
`;
}

function fish(): string {
  const lines = ['# gantry completion for fish: gantry completion fish | source', 'complete -c gantry -f'];
  lines.push(`complete -c gantry -n __fish_use_subcommand -a '${COMMANDS.join(' ')}'`);
  for (const g of GROUPS) {
    const seen = `__fish_seen_subcommand_from ${g.commands.join(' ')}`;
    if (g.subcommands.length) lines.push(`complete -c gantry -n '${seen}' -a '${g.subcommands.join(' ')}'`);
    for (const flag of g.flags) {
      const name = flag.slice(2);
      const extra = FILE_FLAGS.includes(flag) ? ' -r -F' : name === 'output' ? " -x -a 'table json'" : '';
      lines.push(`complete -c gantry -n '${seen}' -l ${name}${extra}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
