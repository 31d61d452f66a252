import type { CSSProperties } from 'react';

const COLORS = ['#4d4d4d', '#e05252', '#3fb950', '#d29922', '#4c8dff', '#c678dd', '#39c5cf', '#d0d0d0'];
const BRIGHT = ['#7f7f7f', '#ff6b6b', '#56d364', '#e3b341', '#79a8ff', '#e08bf0', '#56d4dd', '#ffffff'];

interface Span {
  text: string;
  style: CSSProperties;
}

/**
 * Splits a line at SGR colour codes into styled spans. Only colours and bold are honoured; every
 * other escape sequence is dropped, and the text is rendered as text (never as HTML or links).
 */
export function parseAnsi(line: string): Span[] {
  const spans: Span[] = [];
  let style: CSSProperties = {};
  // eslint-disable-next-line no-control-regex
  const re = /\u001b\[([0-9;]*)([A-Za-z])/g;
  let last = 0;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    if (m.index > last) spans.push({ text: line.slice(last, m.index), style });
    last = re.lastIndex;
    if (m[2] !== 'm') continue;
    const codes = (m[1] || '0').split(';').map(Number);
    for (let i = 0; i < codes.length; i++) {
      const c = codes[i]!;
      if (c === 0) style = {};
      else if (c === 1) style = { ...style, fontWeight: 700 };
      else if (c === 22) style = { ...style, fontWeight: undefined };
      else if (c >= 30 && c <= 37) style = { ...style, color: COLORS[c - 30] };
      else if (c >= 90 && c <= 97) style = { ...style, color: BRIGHT[c - 90] };
      else if (c === 39) style = { ...style, color: undefined };
      else if (c >= 40 && c <= 47) style = { ...style, backgroundColor: COLORS[c - 40] };
      else if (c === 49) style = { ...style, backgroundColor: undefined };
      else if ((c === 38 || c === 48) && codes[i + 1] === 5) i += 2;
    }
  }
  if (last < line.length) spans.push({ text: line.slice(last), style });
  // eslint-disable-next-line no-control-regex
  return spans.map((s) => ({ ...s, text: s.text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '') }));
}

/** The line's text without colour codes or control characters. */
export function stripAnsi(line: string): string {
  return parseAnsi(line)
    .map((s) => s.text)
    .join('');
}
