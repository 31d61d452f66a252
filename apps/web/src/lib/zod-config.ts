// From zod's core only: importing `z` here would put all of zod in the sign-in page's chunks.
import { config } from 'zod/v4/core';

/**
 * Zod compiles fast object parsers with `new Function` after probing whether eval is allowed;
 * under the console's CSP (`script-src 'self'`) even the probe is reported as a violation.
 * Imported first in main.tsx, before any schema is built.
 */
config({ jitless: true });
