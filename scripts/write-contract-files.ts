/**
 * Writes the generated contract files: `schemas/v1alpha1/<Kind>.schema.json` from the TypeBox
 * definitions, `examples/wire/{valid,invalid}/*.json` from `src/contract/examples.ts`, and the
 * precompiled validator module `src/contract/wire-validators.generated.cjs`; and the precompiled
 * validators of what viewer keeps beside the wire (`src/evidence/memory-validators.generated.cjs`,
 * from `src/evidence/memory-schema.ts`: the memory document and `viewer scan`'s observations).
 * `npm run contract` after changing any of their sources; a test fails while the files are out of date.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { contractFiles, GENERATED_DIRS } from '../src/contract/files.ts';
import { MEMORY_VALIDATOR_MODULE, memoryValidatorSource } from '../src/evidence/memory-validator-build.ts';

const root = join(import.meta.dirname, '..');
const files = contractFiles();
for (const dir of GENERATED_DIRS) {
  mkdirSync(join(root, dir), { recursive: true });
  for (const name of readdirSync(join(root, dir))) {
    if (!files.has(`${dir}/${name}`)) rmSync(join(root, dir, name));
  }
}
for (const [path, text] of files) writeFileSync(join(root, path), text);
writeFileSync(join(root, MEMORY_VALIDATOR_MODULE), memoryValidatorSource());
console.log(`wrote ${files.size} contract files and ${MEMORY_VALIDATOR_MODULE}`);
