/**
 * The memory document's kind and version, apart from its schema (memory-schema.ts, built with
 * TypeBox): memory.ts reads and writes documents with these at run time without loading TypeBox
 * (issue 28; contract/values.ts does the same for the wire).
 */
export const MEMORY_KIND = 'EvidenceMemory';
/** The document's version: a reader refuses any other (`other-version`). */
export const MEMORY_VERSION = 1;
