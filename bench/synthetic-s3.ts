/**
 * A bench-only S3 endpoint on 127.0.0.1 that answers from a generated corpus instead of storing
 * it: ListObjectsV2 (prefix, `/` delimiter, StartAfter, continuation tokens, `EncodingType=url`,
 * up to 1,000 keys a page, with S3's XML and a `Date` header) and GetObject. It exists so that a
 * client's whole-process CPU can be measured at 1 M keys (issue 28) without loading a million
 * objects into a real store (Swift takes about 165 PUTs a second here): the client under test is a
 * process of its own, and this server's CPU is not counted. Signatures are not checked. Nothing
 * in viewer's tests uses it; the stores the tests talk to are real.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ListRequest } from '../src/store/driver.ts';
import type { GroupedCorpus } from './corpus.ts';
import { CorpusDriver } from './corpus-driver.ts';

/** XML's five special characters. */
const xml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** S3's `EncodingType=url`: each name percent-encoded, `/` kept. */
const urlName = (s: string) => encodeURIComponent(s).replace(/%2F/g, '/');

export interface SyntheticS3 {
  readonly endpoint: string;
  /** Requests answered so far. */
  readonly requests: () => number;
  close(): Promise<void>;
}

function error(res: ServerResponse, status: number, code: string): void {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${code}</Message></Error>`);
}

async function list(driver: CorpusDriver, bucket: string, query: URLSearchParams, res: ServerResponse): Promise<void> {
  const url = query.get('encoding-type') === 'url';
  const name = url ? urlName : (s: string) => s;
  const prefix = query.get('prefix') ?? '';
  const delimiter = query.get('delimiter');
  if (delimiter !== null && delimiter !== '/') return error(res, 501, 'NotImplemented');
  const maxKeys = Math.min(1000, Math.max(0, Number(query.get('max-keys') ?? '1000') || 0));
  const token = query.get('continuation-token');
  const startAfter = query.get('start-after');
  const request: ListRequest = {
    prefix,
    signal: new AbortController().signal,
    maxKeys,
    ...(delimiter === null ? {} : { delimiter: '/' as const }),
    ...(startAfter === null ? {} : { startAfter }),
    ...(token === null ? {} : { continuationToken: Buffer.from(token, 'base64url').toString('utf8') }),
  };
  const page = await driver.listPage(request);
  const next = page.nextToken === null ? null : Buffer.from(page.nextToken, 'utf8').toString('base64url');
  const parts = [
    '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
    `<Name>${xml(bucket)}</Name><Prefix>${xml(name(prefix))}</Prefix>`,
    delimiter === null ? '' : `<Delimiter>${xml(name(delimiter))}</Delimiter>`,
    `<KeyCount>${page.objects.length + page.prefixes.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys>`,
    url ? '<EncodingType>url</EncodingType>' : '',
    `<IsTruncated>${next === null ? 'false' : 'true'}</IsTruncated>`,
    token === null ? '' : `<ContinuationToken>${xml(token)}</ContinuationToken>`,
    next === null ? '' : `<NextContinuationToken>${next}</NextContinuationToken>`,
    startAfter === null ? '' : `<StartAfter>${xml(name(startAfter))}</StartAfter>`,
  ];
  for (const o of page.objects) {
    parts.push(`<Contents><Key>${xml(name(o.key))}</Key><LastModified>${(o.lastModified ?? new Date(0)).toISOString()}</LastModified><ETag>"0"</ETag><Size>${o.size}</Size><StorageClass>STANDARD</StorageClass></Contents>`);
  }
  for (const p of page.prefixes) parts.push(`<CommonPrefixes><Prefix>${xml(name(p))}</Prefix></CommonPrefixes>`);
  parts.push('</ListBucketResult>');
  res.writeHead(200, { 'content-type': 'application/xml' });
  res.end(parts.join(''));
}

async function get(driver: CorpusDriver, key: string, res: ServerResponse): Promise<void> {
  const r = await driver.readStream({ key, maxBytes: Number.MAX_SAFE_INTEGER, signal: new AbortController().signal });
  if (r.status !== 'found') return error(res, 404, 'NoSuchKey');
  const chunks: Uint8Array[] = [];
  for await (const c of r.chunks) chunks.push(c);
  const body = Buffer.concat(chunks);
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.byteLength, etag: '"0"', 'last-modified': new Date(0).toUTCString() });
  res.end(body);
}

/** Serves `corpus` on 127.0.0.1 at an ephemeral port. */
export async function startSyntheticS3(corpus: GroupedCorpus): Promise<SyntheticS3> {
  const driver = new CorpusDriver(corpus);
  let requests = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    requests += 1;
    const target = new URL(req.url ?? '/', 'http://bench');
    const [, bucket = '', ...rest] = target.pathname.split('/');
    if (req.method !== 'GET' || bucket === '') return error(res, 501, 'NotImplemented');
    if (rest.length === 0 || (rest.length === 1 && rest[0] === '')) {
      if (target.searchParams.get('list-type') !== '2') return error(res, 501, 'NotImplemented');
      return list(driver, decodeURIComponent(bucket), target.searchParams, res);
    }
    return get(driver, decodeURIComponent(rest.join('/')), res);
  };
  const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    handle(req, res).catch(() => error(res, 500, 'InternalError'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
