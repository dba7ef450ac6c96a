#!/usr/bin/env node
// The `viewer` executable. It refuses an older Node.js before anything else, then runs the
// TypeScript command line directly (Node 24 strips types natively; there is no build step).
import { enableCompileCache } from 'node:module';
import { join } from 'node:path';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(`viewer: Node.js 24 or newer is required, this is ${process.version}; run it with npx viewer or npm start after npm ci\n`);
  process.exit(1);
}

// The young generation's size is fixed when V8 starts. Left to V8, it grows under a listing's
// allocation rate to its machine-dependent maximum, about 50 MiB of resident memory for no
// measurable CPU (docs/performance.md, issue 28). So, unless the user chose a size (a node flag or
// NODE_OPTIONS, as the pod's manifest does), the process replaces itself once with Node started
// with the size measured for viewer. process.execve keeps the PID, the environment and the open
// descriptors; where it is missing or refused, viewer runs on V8's default.
const YOUNG_GENERATION_FLAG = '--max-semi-space-size=4';
const chosen = [...process.execArgv, process.env['NODE_OPTIONS'] ?? ''].some((flag) => /--max[-_]semi[-_]space[-_]size/.test(flag));
if (!chosen && typeof process.execve === 'function') {
  try {
    process.execve(process.execPath, [process.execPath, YOUNG_GENERATION_FLAG, ...process.execArgv, ...process.argv.slice(1)], process.env);
  } catch {
    // Refused (a seccomp profile, a platform without execve): V8's default young generation.
  }
}

// Node's compile cache keeps each module's stripped and compiled code between runs, in the user's
// own cache directory (never a shared /tmp, where another user could plant code): about 0.2 s of
// CPU and 25 MiB less at every start after the first. No home directory (a HOME-less uid, the
// image): no cache, nothing written. NODE_COMPILE_CACHE and NODE_DISABLE_COMPILE_CACHE keep
// their meaning: Node reads them before this line. A directory that cannot be written is no error.
const cacheHome = process.env['XDG_CACHE_HOME'] || (process.env['HOME'] ? join(process.env['HOME'], '.cache') : '');
if (cacheHome.startsWith('/')) enableCompileCache(join(cacheHome, 'viewer', 'node-compile-cache'));

// Installed from a registry, the package sits under node_modules, where Node strips no types.
if (import.meta.url.includes('/node_modules/')) await import('./register.js');
await import('../src/cli/main.ts');
