/**
 * The servers of the API figures, each in its own process on a Unix socket:
 *   evidence  the sidecar's evidence API (createEvidenceApi, the same handler, limits, logger and
 *             socket binding the sidecar uses) over a publication the real scanner built from an
 *             in-process corpus. The sidecar's own wiring differs only in the store behind the
 *             scanner and the refresher, neither of which runs during a request.
 *   bare      a plain node:http server answering every request with the same bytes (read from a
 *             file the bench wrote from the evidence server's response).
 * Prints `ready` once listening; stops on SIGTERM.
 *
 * Usage: node bench/api-server.ts evidence <socket> <token file> <segments> [sparse]
 *        node bench/api-server.ts bare <socket> <body file>
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { PRODUCER_VERSION, standaloneCluster } from '../src/cli/identity.ts';
import { createLogger } from '../src/common/log.ts';
import { MEDIA_TYPE } from '../src/contract/primitives.ts';
import { BudgetMeter } from '../src/evidence/listing.ts';
import { scanScope } from '../src/evidence/scope-scan.ts';
import { Publisher } from '../src/publication/publisher.ts';
import { createEvidenceApi } from '../src/surface/api/evidence-api.ts';
import { listenOnSocket } from '../src/surface/api/socket.ts';
import { Corpus } from './corpus.ts';
import { CorpusDriver } from './corpus-driver.ts';

const [kind, socket, file, segmentsText, sparse] = process.argv.slice(2);
if ((kind !== 'evidence' && kind !== 'bare') || socket === undefined || file === undefined || (kind === 'evidence' && !Number.isInteger(Number(segmentsText)))) {
  process.stderr.write('usage: api-server.ts evidence <socket> <token file> <segments> [sparse] | bare <socket> <body file>\n');
  process.exit(64);
}

async function evidenceServer(): Promise<Server> {
  const corpus = new Corpus({ root: 'bench/api/', segments: Number(segmentsText), seed: 7, sparse: sparse === 'sparse' });
  const publisher = new Publisher(
    { cluster: standaloneCluster, provider: 'store-a', fingerprint: `sha256:${'a'.repeat(64)}`, server: 'api', producerVersion: PRODUCER_VERSION },
    { policyText: null, policy: null, minimumRedundancy: null },
    24 * 3600_000,
  );
  const meter = new BudgetMeter({ maxPages: 1e9, maxObjects: 1e12 });
  const startedAt = new Date();
  const evidence = await scanScope({ server: 'api', root: 'bench/api/', driver: new CorpusDriver(corpus), signal: new AbortController().signal, meter, concurrency: 8, ...publisher.nextScan });
  const publication = publisher.complete(evidence, { startedAt, finishedAt: new Date(), pages: meter.pages, objects: meter.objects });
  if (publication.violations.length > 0) throw new Error('the bench publication is invalid');
  const token = readFileSync(file as string, 'utf8').trim();
  // The sidecar's default log level: one request line per request, as in production.
  return createEvidenceApi({ token, publication: () => publication, ready: () => true, logger: createLogger('info') });
}

function bareServer(): Server {
  const body = readFileSync(file as string);
  const headers = { 'content-type': MEDIA_TYPE, 'content-length': String(body.byteLength), 'cache-control': 'no-store' };
  return createServer((_req, res) => {
    res.writeHead(200, headers);
    res.end(body);
  });
}

const server = kind === 'evidence' ? await evidenceServer() : bareServer();
await listenOnSocket(server, socket);
process.stderr.write('ready\n');
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
});
