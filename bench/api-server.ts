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
import { createLogger } from '../src/common/log.ts';
import { MEDIA_TYPE } from '../src/contract/values.ts';
import { createEvidenceApi } from '../src/surface/api/evidence-api.ts';
import { listenOnSocket } from '../src/surface/api/socket.ts';
import { Corpus } from './corpus.ts';
import { publishCorpus } from './corpus-publication.ts';

const [kind, socket, file, segmentsText, sparse] = process.argv.slice(2);
if ((kind !== 'evidence' && kind !== 'bare') || socket === undefined || file === undefined || (kind === 'evidence' && !Number.isInteger(Number(segmentsText)))) {
  process.stderr.write('usage: api-server.ts evidence <socket> <token file> <segments> [sparse] | bare <socket> <body file>\n');
  process.exit(64);
}

async function evidenceServer(): Promise<Server> {
  const corpus = new Corpus({ root: 'bench/api/', segments: Number(segmentsText), seed: 7, sparse: sparse === 'sparse' });
  // Fresh for a day: the publication must not turn stale while the bench is running.
  const { publication } = await publishCorpus({ corpus, server: 'api', concurrency: 8, freshnessMs: 24 * 3600_000 });
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
