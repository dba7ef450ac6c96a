// Node.js strips TypeScript types from every file except those under node_modules
// (ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING), and viewer ships its TypeScript source (no build
// step, D-68). Installed from a registry, viewer sits under node_modules: this hook strips the types
// of viewer's own .ts files (this package's, never a dependency's) with Node's own
// module.stripTypeScriptTypes, as Node does everywhere else. bin/viewer.js loads it when it runs
// from node_modules; a consumer of viewer/client installed from a registry runs
// `node --import viewer/register …` (docs/consumer.md). Whitespace replaces the types, so line and
// column numbers stay those of the source.
import { readFileSync } from 'node:fs';
import { registerHooks, stripTypeScriptTypes } from 'node:module';
import { fileURLToPath, URL } from 'node:url';

const PACKAGE = new URL('../', import.meta.url).href;

registerHooks({
  load(url, context, nextLoad) {
    if (url.startsWith(PACKAGE) && url.endsWith('.ts') && !url.slice(PACKAGE.length).includes('node_modules/')) {
      return { format: 'module', source: stripTypeScriptTypes(readFileSync(fileURLToPath(url), 'utf8')), shortCircuit: true };
    }
    return nextLoad(url, context);
  },
});
