import { z } from 'zod';

/**
 * Zod compiles fast object parsers with `new Function` after probing whether eval is allowed;
 * under the console's CSP (`script-src 'self'`) even the probe is reported as a violation.
 * Imported first in main.tsx, before any schema is built.
 */
z.config({ jitless: true });
