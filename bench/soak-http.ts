/**
 * The soak's HTTP/1.1 client connection (bench/soak.ts): one keep-alive connection on a Unix
 * socket, written and parsed by hand so the soak sees exactly what arrives. Requests may be
 * pipelined (the slow readers send several before reading any answer); answers are matched to
 * requests in order. Every answer must carry a Content-Length (the sidecar always sends one) and
 * exactly that many body bytes: a connection that ends inside an answer, or bytes that cannot be
 * an answer, fail every request still waiting on it, and the connection is not used again.
 */
import { connect, type Socket } from 'node:net';

export interface HttpAnswer {
  readonly status: number;
  /** Header names in lower case; a repeated header keeps its last value. */
  readonly headers: ReadonlyMap<string, string>;
  readonly body: Buffer;
}

interface Waiting {
  readonly resolve: (a: HttpAnswer) => void;
  readonly reject: (e: Error) => void;
}

const HEAD_END = Buffer.from('\r\n\r\n');
const MAX_HEAD_BYTES = 16 * 1024;

export class KeepAliveConnection {
  readonly #socket: Socket;
  readonly #waiting: Waiting[] = [];
  readonly #authorization: string;
  #buffered: Buffer = Buffer.alloc(0);
  /** The answer being read: its head is parsed, its body has `remaining` bytes to come. */
  #current: { status: number; headers: Map<string, string>; chunks: Buffer[]; remaining: number } | null = null;
  #closed = false;

  readonly #extra: string;

  /** `extraHeader`: one more header line (`Name: value`) on every request. */
  constructor(socketPath: string, token: string, extraHeader?: string) {
    this.#authorization = `Bearer ${token}`;
    this.#extra = extraHeader === undefined ? '' : `${extraHeader}\r\n`;
    this.#socket = connect(socketPath);
    this.#socket.on('data', (chunk: Buffer) => this.#read(chunk));
    this.#socket.on('error', () => this.#fail('connection error'));
    this.#socket.on('close', () => this.#fail('connection closed'));
  }

  /** False once the connection failed or closed: make a new one. */
  get usable(): boolean {
    return !this.#closed;
  }

  /** Sends a GET now (behind any request still waiting for its answer) and resolves with its answer. */
  get(path: string): Promise<HttpAnswer> {
    if (this.#closed) return Promise.reject(new Error('connection closed'));
    return new Promise<HttpAnswer>((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${this.#authorization}\r\n${this.#extra}\r\n`);
    });
  }

  /** Stops reading: answers stay in the socket's buffers and the server's, as with a stalled consumer. */
  pause(): void {
    this.#socket.pause();
  }

  resume(): void {
    this.#socket.resume();
  }

  close(): void {
    this.#closed = true;
    this.#socket.destroy();
  }

  #fail(why: string): void {
    this.#closed = true;
    this.#socket.destroy();
    for (const w of this.#waiting.splice(0)) w.reject(new Error(why));
  }

  #read(chunk: Buffer): void {
    this.#buffered = this.#buffered.length === 0 ? chunk : Buffer.concat([this.#buffered, chunk]);
    while (!this.#closed && this.#buffered.length > 0) {
      if (this.#current === null) {
        const end = this.#buffered.indexOf(HEAD_END);
        if (end === -1) {
          if (this.#buffered.length > MAX_HEAD_BYTES) this.#fail('answer head too long');
          return;
        }
        const head = this.#parseHead(this.#buffered.subarray(0, end).toString('latin1'));
        this.#buffered = this.#buffered.subarray(end + HEAD_END.length);
        if (head === null) return this.#fail('malformed answer head');
        this.#current = head;
      }
      const current = this.#current;
      const take = Math.min(current.remaining, this.#buffered.length);
      if (take > 0) current.chunks.push(this.#buffered.subarray(0, take));
      current.remaining -= take;
      this.#buffered = this.#buffered.subarray(take);
      if (current.remaining > 0) return;
      this.#current = null;
      const waiting = this.#waiting.shift();
      if (waiting === undefined) return this.#fail('an answer no request asked for');
      waiting.resolve({ status: current.status, headers: current.headers, body: Buffer.concat(current.chunks) });
      if (current.headers.get('connection')?.toLowerCase() === 'close') {
        this.#fail('connection closed by the server');
        return;
      }
    }
  }

  #parseHead(text: string): { status: number; headers: Map<string, string>; chunks: Buffer[]; remaining: number } | null {
    const [statusLine = '', ...lines] = text.split('\r\n');
    const m = /^HTTP\/1\.1 ([1-5][0-9]{2}) /.exec(statusLine);
    if (m === null) return null;
    const headers = new Map<string, string>();
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon <= 0) return null;
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const length = headers.get('content-length');
    if (length === undefined || !/^[0-9]{1,9}$/.test(length)) return null;
    return { status: Number(m[1]), headers, chunks: [], remaining: Number(length) };
  }
}
