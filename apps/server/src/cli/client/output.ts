import { CliError } from './cli-error.js';

/** Where a command writes, so tests and --output json share one path. */
export type OutputFormat = 'table' | 'json';

export function parseOutputFormat(value: string | undefined): OutputFormat {
  if (value === undefined || value === 'table') return 'table';
  if (value === 'json') return 'json';
  throw new CliError('--output must be table or json');
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Aligned columns with a header; nested values as compact JSON, null as empty. */
export function printTable(rows: Record<string, unknown>[], columns: string[]): void {
  const cells = rows.map((r) => columns.map((c) => cellText(r[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) =>
    values.map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!))).join('  ');
  process.stdout.write(`${line(columns.map((c) => c.toUpperCase()))}\n`);
  for (const row of cells) process.stdout.write(`${line(row)}\n`);
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  // One row per object: a multi-line value (an inventory) shows its first line only.
  const first = text.split('\n')[0]!;
  return first.length < text.length || first.length > 60 ? `${first.slice(0, 57)}...` : first;
}

const useColour = () => process.stdout.isTTY === true && !process.env.NO_COLOR;

/** ANSI colours only on a terminal (and never with NO_COLOR). */
export function colour(code: 'green' | 'red' | 'yellow' | 'cyan', text: string): string {
  if (!useColour()) return text;
  const n = { red: 31, green: 32, yellow: 33, cyan: 36 }[code];
  return `\x1b[${n}m${text}\x1b[0m`;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g;

/** A log line as the terminal should see it: ANSI kept on a TTY, removed in a pipe or file. */
export function logLineText(text: string): string {
  return useColour() ? text : text.replace(ANSI, '');
}
