import type { PatternCompiler } from '@gantry/contracts';
import { RE2JS } from 're2js';

/**
 * Parameter patterns as the server runs them: RE2's linear-time engine, so a manager's pattern
 * such as `(a+)+b` cannot stall the event loop on a crafted answer. RE2 has no backreferences
 * nor lookaround; a pattern that uses them does not compile here (templates refuse it on save).
 */
export const compileLinearPattern: PatternCompiler = (source) => {
  try {
    const re = RE2JS.compile(`^(?:${source})$`);
    return { test: (text) => re.matches(text) };
  } catch {
    return null;
  }
};
