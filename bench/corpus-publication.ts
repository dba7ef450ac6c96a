/**
 * A publication built from a generated corpus the way `viewer scan` builds one after its store
 * driver: scanScope over the in-process listing source, then the publisher. Shared by the
 * in-process scan figures (bench/inprocess-scan.ts) and the evidence API server
 * (bench/api-server.ts), so both measure the same path.
 */
import { PRODUCER_VERSION, standaloneCluster } from '../src/cli/identity.ts';
import { BudgetMeter } from '../src/evidence/listing.ts';
import { scanScope } from '../src/evidence/scope-scan.ts';
import { Publisher } from '../src/publication/publisher.ts';
import type { GroupedCorpus } from './corpus.ts';
import type { RepositoryFormat } from '../src/format/seam.ts';
import { CorpusDriver } from './corpus-driver.ts';
import { archiveCloud } from '../src/format/barman-cloud/format.ts';

export interface CorpusPublicationOptions {
  readonly corpus: GroupedCorpus & { readonly spec: { readonly root: string } };
  /** The scope's server name (a stanza for pgBackRest); its root is the corpus's. */
  readonly server: string;
  /** barman-cloud's unless given (the pgBackRest corpus passes `stanzaRepository`). */
  readonly format?: RepositoryFormat;
  readonly concurrency: number;
  /** How long the publication stays fresh. */
  readonly freshnessMs: number;
  /** A source shared across scans (to read its request count); a new one otherwise. */
  readonly driver?: CorpusDriver;
}

export async function publishCorpus(o: CorpusPublicationOptions) {
  const format = o.format ?? archiveCloud;
  const publisher = new Publisher(
    { cluster: standaloneCluster, provider: 'store-a', fingerprint: `sha256:${'f'.repeat(64)}`, server: o.server, producerVersion: PRODUCER_VERSION, format },
    { policyText: null, policy: null, minimumRedundancy: null },
    o.freshnessMs,
  );
  const meter = new BudgetMeter({ maxPages: 1e9, maxObjects: 1e12 });
  const driver = o.driver ?? new CorpusDriver(o.corpus);
  const startedAt = new Date();
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  const evidence = await scanScope({ format, server: o.server, root: o.corpus.spec.root, driver, signal: new AbortController().signal, meter, concurrency: o.concurrency, ...publisher.nextScan });
  const publication = publisher.complete(evidence, { startedAt, finishedAt: new Date(), pages: meter.pages, objects: meter.objects });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  return { publisher, evidence, publication, ms, cpuMs: (cpu.user + cpu.system) / 1000, listed: meter.objects };
}
