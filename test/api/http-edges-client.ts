/**
 * A hand-written HTTP/1.1 client for the HTTP-edge tests of both surfaces: it writes bytes exactly
 * as given on a Unix socket or a TCP port and parses what comes back, so requests Node's own
 * client would refuse to send (no Host, CONNECT, broken request lines, oversized headers) reach
 * the servers as written, and interim `1xx` answers are seen instead of being swallowed.
 */
import { connect, type NetConnectOpts } from 'node:net';

export interface RawReply {
  /** Status of the final response; 0 when the connection ended before a whole one arrived. */
  readonly status: number;
  /** Header names in lower case, every value of a repeated header kept. */
  readonly headers: Readonly<Record<string, readonly string[]>>;
  readonly body: string;
  /** Status lines of interim (`1xx`) responses before the final one. */
  readonly interim: readonly string[];
  /** The server closed the connection after a response that said `Connection: close`. */
  readonly closed: boolean;
}

/** The one value of a header; fails the caller's assertion by returning undefined when repeated. */
export function header(reply: RawReply, name: string): string | undefined {
  const values = reply.headers[name.toLowerCase()];
  return values?.length === 1 ? values[0] : undefined;
}

const HEAD_END = Buffer.from('\r\n\r\n');

interface Parsed { status: number; headers: Record<string, string[]>; bodyStart: number; length: number }

function parseHead(buffer: Buffer): Parsed | null {
  const end = buffer.indexOf(HEAD_END);
  if (end === -1) return null;
  const [statusLine = '', ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string[]> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    (headers[name] ??= []).push(line.slice(colon + 1).trim());
  }
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? -1);
  return { status, headers, bodyStart: end + HEAD_END.length, length: Number(headers['content-length']?.[0] ?? 0) };
}

/**
 * Sends `bytes` and resolves with the first final response. After a response that says
 * `Connection: close`, waits (at most `closeWaitMs`) to see the server close the connection.
 * Never rejects: a connection that ends early, or no answer within `timeoutMs`, is status 0.
 */
export function exchange(to: NetConnectOpts, bytes: string | Buffer, { timeoutMs = 3_000, closeWaitMs = 2_000 } = {}): Promise<RawReply> {
  return new Promise((resolve) => {
    const socket = connect(to, () => socket.write(bytes));
    const interim: string[] = [];
    let buffer = Buffer.alloc(0);
    let settled = false;
    let reply: RawReply | null = null;
    const finish = (r: RawReply) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(r);
    };
    const none = (closed: boolean): RawReply => ({ status: 0, headers: {}, body: buffer.toString('latin1'), interim, closed });
    const timer = setTimeout(() => finish(reply ?? none(false)), timeoutMs);
    // A reset is seen as the close that always follows it.
    socket.on('error', () => undefined);
    socket.on('close', () => finish(reply === null ? none(true) : { ...reply, closed: true }));
    socket.on('data', (chunk: Buffer) => {
      if (reply !== null) return;
      buffer = Buffer.concat([buffer, chunk]);
      for (let head = parseHead(buffer); head !== null; head = parseHead(buffer)) {
        if (head.status >= 100 && head.status < 200) {
          interim.push(buffer.subarray(0, buffer.indexOf('\r\n')).toString('latin1'));
          buffer = buffer.subarray(head.bodyStart);
          continue;
        }
        if (buffer.length < head.bodyStart + head.length) return;
        const got: RawReply = { status: head.status, headers: head.headers, body: buffer.subarray(head.bodyStart, head.bodyStart + head.length).toString('utf8'), interim, closed: false };
        reply = got;
        if (head.headers['connection']?.[0]?.toLowerCase() !== 'close') {
          finish(got);
        } else {
          clearTimeout(timer);
          setTimeout(() => finish(got), closeWaitMs).unref();
        }
        return;
      }
    });
  });
}

/**
 * Sends `bytes` and resolves with everything read until the connection closes (or `timeoutMs`
 * passes), for pipelined requests. With `abort`, the client goes away as soon as it has written:
 * a reset on TCP, a plain close on a Unix socket (which has no reset).
 */
export function readAll(to: NetConnectOpts, bytes: string | Buffer, { timeoutMs = 3_000, abort = false } = {}): Promise<string> {
  return new Promise((resolve) => {
    let all = '';
    const socket = connect(to, () =>
      socket.write(bytes, () => {
        if (abort) setImmediate(() => ('port' in to ? socket.resetAndDestroy() : socket.destroy()));
      }),
    );
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (c: Buffer) => (all += c.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(all);
    });
  });
}
