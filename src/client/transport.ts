/**
 * The consumer's one way to the sidecar: an authenticated `GET` over the Unix socket with a hard
 * deadline and a response-size ceiling. It answers a status and a parsed body, or throws
 * `TransportFailure` (`transport` or `timeout`) whose message is fixed text: a raw socket error
 * never leaves this module, so it can never reach a page, a log line or a metric label.
 * The token is sent only in the `Authorization` header and is never part of an error.
 */
import { request } from 'node:http';
import { MEDIA_TYPE } from '../contract/values.ts';

/** What the client needs of a transport; tests may wrap the real one to act between pages. */
export type Transport = (path: string, signal: AbortSignal) => Promise<TransportResponse>;

export interface TransportResponse {
  readonly status: number;
  /** True when the response was the API's media type. */
  readonly mediaTypeOk: boolean;
  /** The parsed JSON body, or `undefined` when it was not JSON. */
  readonly body: unknown;
}

export type TransportFailureKind = 'transport' | 'timeout';

export class TransportFailure extends Error {
  readonly kind: TransportFailureKind;
  constructor(kind: TransportFailureKind) {
    super(kind === 'timeout' ? 'the sidecar did not answer in time' : 'the sidecar could not be reached');
    this.name = 'TransportFailure';
    this.kind = kind;
  }
}

/** A collection page is at most 1 MiB, a snapshot at most 256 KiB (spec Limits); anything longer is refused unread. */
export const RESPONSE_MAX_BYTES = 1024 * 1024;
/** The handler deadline is 5 s (spec Limits); the client allows one more second for the socket. */
export const REQUEST_TIMEOUT_MS = 6_000;

export interface UnixSocketTransportOptions {
  readonly socketPath: string;
  readonly token: string;
  readonly timeoutMs?: number;
}

export function unixSocketTransport(o: UnixSocketTransportOptions): Transport {
  const timeoutMs = o.timeoutMs ?? REQUEST_TIMEOUT_MS;
  return (path, outer) =>
    new Promise<TransportResponse>((resolve, reject) => {
      const deadline = AbortSignal.timeout(timeoutMs);
      const signal = AbortSignal.any([outer, deadline]);
      const fail = () => reject(new TransportFailure(deadline.aborted && !outer.aborted ? 'timeout' : 'transport'));
      if (signal.aborted) {
        fail();
        return;
      }
      // A connection per request (no agent): a Unix socket connection costs little, and a kept-alive
      // socket of a sidecar that restarted would fail the next request of a walk for nothing.
      const req = request({ socketPath: o.socketPath, path, method: 'GET', agent: false, headers: { Authorization: `Bearer ${o.token}`, Accept: MEDIA_TYPE, Host: 'sidecar' }, signal });
      req.on('error', fail);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > RESPONSE_MAX_BYTES) {
            // Over the spec's ceiling: answered as an unreadable body, which the caller refuses.
            resolve({ status: res.statusCode ?? 0, mediaTypeOk: false, body: undefined });
            res.destroy();
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', fail);
        res.on('end', () => {
          let body: unknown;
          try {
            body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, mediaTypeOk: res.headers['content-type'] === MEDIA_TYPE, body });
        });
        res.on('close', () => {
          if (!res.complete) fail();
        });
      });
      req.end();
    });
}
