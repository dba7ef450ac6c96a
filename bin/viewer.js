#!/usr/bin/env node
// The `viewer` executable. It refuses an older Node.js before anything else, then runs the
// TypeScript command line directly (Node 24 strips types natively; there is no build step).
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(`viewer: Node.js 24 or newer is required, this is ${process.version}; run it with npx viewer or npm start after npm ci\n`);
  process.exit(1);
}
// Installed from a registry, the package sits under node_modules, where Node strips no types.
if (import.meta.url.includes('/node_modules/')) await import('./register.js');
await import('../src/cli/main.ts');
