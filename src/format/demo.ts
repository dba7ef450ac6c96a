/**
 * The embedded demo repository, for the command line to run without naming the format folder that
 * writes it: a repository of the default format (`registry.ts`'s first entry), with its bucket,
 * prefix and one scope. What it holds is described where it is written.
 */
export { DEMO_BUCKET, DEMO_PREFIX, DEMO_SERVER, demoRepository } from './barman-cloud/demo-repository.ts';
