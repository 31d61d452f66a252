#!/usr/bin/env node
// The installed entry point: runs the compiled CLI (build with `npm run build`).
import('../dist/cli/main.js').then((m) => m.main(process.argv.slice(2)));
