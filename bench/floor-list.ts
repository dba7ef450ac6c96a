/**
 * `node bench/floor-list.ts <endpoint> <bucket> <prefix>`: a flat ListObjectsV2 listing at the floor
 * of any Node.js client (issue 28, bench/list-cpu.ts's `floor` case). Each page is signed by the
 * SDK's own SigV4 signer, sent with node:http on one kept-alive socket and read by viewer's parser;
 * nothing else: no middleware, retries, endpoint rules or credential chain, and no module beyond
 * those three, so the process's CPU is start-up, HTTP, signing and parsing. Prints
 * `{"keys":…,"bytes":…,"loopCpuMs":…}`, the last the listing loop's own CPU (start-up excluded).
 * The bench store's credentials come from `BENCH_ACCESS_KEY_ID` and `BENCH_SECRET_ACCESS_KEY`
 * (bench/s3.ts defines them; importing it would load the SDK's client).
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { Agent, request } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import { ListObjectsParser, type ParsedListing } from '../src/store/s3/list-objects-parser.ts';

/** The `floor` case: signed pages over node:http, read by viewer's parser, nothing else. */
async function floor(endpoint: string, bucket: string, root: string): Promise<void> {
  const url = new URL(endpoint);
  const signer = new SignatureV4({ credentials: { accessKeyId: process.env['BENCH_ACCESS_KEY_ID'] ?? '', secretAccessKey: process.env['BENCH_SECRET_ACCESS_KEY'] ?? '' }, region: 'us-east-1', service: 's3', sha256: NodeSha256 });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let keys = 0;
  let bytes = 0;
  let token: string | null = null;
  const cpu0 = process.cpuUsage();
  do {
    const query: Record<string, string> = { 'list-type': '2', prefix: root, 'max-keys': '1000', 'encoding-type': 'url', ...(token === null ? {} : { 'continuation-token': token }) };
    const signed = await signer.sign({ method: 'GET', protocol: url.protocol, hostname: url.hostname, port: Number(url.port), path: `/${bucket}`, query, headers: { host: url.host, 'x-amz-content-sha256': EMPTY_SHA256 } });
    const path = `/${bucket}?${Object.entries(query).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`;
    const page = await new Promise<ParsedListing>((resolve, reject) => {
      const req = request({ agent, host: url.hostname, port: url.port, method: 'GET', path, headers: signed.headers }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`HTTP ${String(res.statusCode)}`));
        const parser = new ListObjectsParser();
        res.on('data', (c: Buffer) => parser.push(c));
        res.on('end', () => {
          try {
            resolve(parser.end());
          } catch (e) {
            reject(e instanceof Error ? e : new Error(String(e)));
          }
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    keys += page.objects.length;
    for (const o of page.objects) bytes += o.size;
    token = page.nextContinuationToken;
  } while (token !== null);
  const cpu = process.cpuUsage(cpu0);
  agent.destroy();
  process.stdout.write(`${JSON.stringify({ keys, bytes, loopCpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
}

const EMPTY_SHA256 = createHash('sha256').digest('hex');

const bytesOf = (d: string | ArrayBuffer | ArrayBufferView): string | Uint8Array => (typeof d === 'string' ? d : ArrayBuffer.isView(d) ? new Uint8Array(d.buffer, d.byteOffset, d.byteLength) : new Uint8Array(d));

/** The signer's hash and HMAC from node:crypto, as the SDK's own Node.js runtime gives it. */
class NodeSha256 {
  readonly #h: Hash | Hmac;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.#h = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.#h.update(bytesOf(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.#h.digest()));
  }
  reset(): void {}
}


const [endpoint = '', bucket = '', prefix = ''] = process.argv.slice(2);
await floor(endpoint, bucket, prefix);
