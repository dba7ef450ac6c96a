/**
 * Opaque pagination cursors (spec "Pagination rules"): base64url of a binary record authenticated
 * with HMAC-SHA256 under a process-random secret that is distinct from the bearer token and never
 * persisted. A cursor binds the route, the publication (revision and generation), the sort
 * position and the page size; anything else (another route, another publication, a previous
 * process, a changed byte) fails verification and is `invalid-request`.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { PAGE_LIMITS } from '../../contract/values.ts';
import { COLLECTIONS, type CollectionRoute } from '../../contract/routes.ts';

export type CursorRoute = CollectionRoute;
/** A cursor records its collection as an index into this list (the order of `COLLECTIONS`). */
const CURSOR_ROUTES: readonly CursorRoute[] = COLLECTIONS.map((c) => c.route);

export interface CursorState {
  readonly route: CursorRoute;
  readonly revision: number;
  readonly generation: number;
  /** Index of the first item of the next page in the publication's sorted collection. */
  readonly offset: number;
  readonly limit: number;
}

const VERSION = 1;
const BODY = 1 + 1 + 8 + 8 + 8 + 2;
const MAC = 32;

export class CursorCodec {
  readonly #secret: Buffer;

  /** `secret` only for tests; by default 32 random bytes of this process. */
  constructor(secret: Buffer = randomBytes(32)) {
    this.#secret = secret;
  }

  #mac(body: Buffer): Buffer {
    return createHmac('sha256', this.#secret).update(body).digest();
  }

  encode(s: CursorState): string {
    const body = Buffer.alloc(BODY);
    body.writeUInt8(VERSION, 0);
    body.writeUInt8(CURSOR_ROUTES.indexOf(s.route), 1);
    body.writeBigUInt64BE(BigInt(s.revision), 2);
    body.writeBigUInt64BE(BigInt(s.generation), 10);
    body.writeBigUInt64BE(BigInt(s.offset), 18);
    body.writeUInt16BE(s.limit, 26);
    return Buffer.concat([body, this.#mac(body)]).toString('base64url');
  }

  /** The state a cursor carries, or `null` when it is not one this process issued. */
  decode(text: string): CursorState | null {
    if (text.length > PAGE_LIMITS.cursorBytes || !/^[A-Za-z0-9_-]+$/.test(text)) return null;
    const raw = Buffer.from(text, 'base64url');
    if (raw.length !== BODY + MAC || raw.toString('base64url') !== text) return null;
    const body = raw.subarray(0, BODY);
    if (!timingSafeEqual(raw.subarray(BODY), this.#mac(body))) return null;
    const route = CURSOR_ROUTES[body.readUInt8(1)];
    if (body.readUInt8(0) !== VERSION || route === undefined) return null;
    const num = (at: number) => {
      const v = body.readBigUInt64BE(at);
      return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : null;
    };
    const revision = num(2);
    const generation = num(10);
    const offset = num(18);
    if (revision === null || generation === null || offset === null) return null;
    return { route, revision, generation, offset, limit: body.readUInt16BE(26) };
  }
}
