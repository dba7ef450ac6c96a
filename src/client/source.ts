/**
 * The consumer's repository source: a background poller of the sidecar that keeps the last
 * completely assembled projection and a typed source state (spec "Consumer contract" rules 3-5,
 * "Pagination rules" 4-6). Design note: docs/consumer.md §"The poller".
 *
 * - Polls `/snapshot` every `intervalMs` with bounded jitter (±`jitter`), never in lockstep with
 *   other consumers; skips every collection request while `(revision, evidence_generation)` equals
 *   the projection's (the newer snapshot envelope still replaces the old one: staleness can change
 *   without a new revision).
 * - A `PublicationMoved` (409, or a 400 on a cursor after a sidecar restart) discards the partial
 *   walk and restarts from the snapshot after a jittered exponential backoff; more than
 *   `maxRestarts` in one poll is `publication-churn`.
 * - Every failure sets the state and its reason and keeps the last projection (rule 5). Nothing
 *   here can fail the consumer's own readiness: it has no readiness of its own to fail.
 *
 * States: `available` (the last poll reached the sidecar and the projection is its current
 * publication), `unavailable` (the sidecar could not be asked: transport, timeout, authentication,
 * busy, token file), `unknown` (the sidecar answered with something this client cannot use:
 * schema-incompatible, invalid-publication, identity-mismatch, publication-churn; or no poll yet).
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { TOKEN_FILE_MAX_BYTES, tokenOfFileText } from '../contract/token.ts';
import { assembleProjection, AssemblyFailure, PublicationMoved, readSnapshot, type AssemblyFailureReason, type MoveCause } from './assembly.ts';
import type { ConsumerConfig } from './config.ts';
import type { Projection } from './projection.ts';
import { TransportFailure, unixSocketTransport, type Transport } from './transport.ts';

export type SourceState = 'available' | 'unavailable' | 'unknown';

export type SourceReason =
  | 'not-yet-polled'
  | 'current'
  | 'transport'
  | 'timeout'
  | 'token-unreadable'
  | 'publication-churn'
  | AssemblyFailureReason;

/** The state each reason means: the one table of it. */
export const STATE_OF_REASON: { readonly [R in SourceReason]: SourceState } = {
  'not-yet-polled': 'unknown',
  current: 'available',
  transport: 'unavailable',
  timeout: 'unavailable',
  'token-unreadable': 'unavailable',
  authentication: 'unavailable',
  busy: 'unavailable',
  'schema-incompatible': 'unknown',
  'invalid-publication': 'unknown',
  'identity-mismatch': 'unknown',
  'publication-churn': 'unknown',
};

export interface SourceStatus {
  readonly state: SourceState;
  readonly reason: SourceReason;
  /** When the current state and reason began, on the consumer's clock. */
  readonly since: Date;
  readonly lastPollAt: Date | null;
  /** Restarts from the snapshot since the source started, by cause. */
  readonly restarts: { readonly [C in MoveCause]: number };
  readonly polls: number;
}

/** What happened in a poll, for the caller's log and metrics. Carries no identity, token or body. */
export type SourceEvent =
  | { readonly type: 'assembled'; readonly revision: number; readonly generation: number }
  | { readonly type: 'unchanged'; readonly revision: number; readonly generation: number }
  | { readonly type: 'restart'; readonly cause: MoveCause }
  | { readonly type: 'failed'; readonly reason: SourceReason };

export interface EvidenceSourceOptions {
  readonly config: ConsumerConfig;
  /** The way to the sidecar; by default the fixed Unix socket with the token read from the token file. */
  readonly transport?: Transport;
  readonly intervalMs?: number;
  /** Fraction of the interval each wait varies by, 0 to 0.5. */
  readonly jitter?: number;
  /** Restarts from the snapshot allowed in one poll before the source calls it churn. */
  readonly maxRestarts?: number;
  readonly backoffBaseMs?: number;
  readonly backoffMaxMs?: number;
  readonly pageLimit?: number;
  readonly now?: () => Date;
  readonly random?: () => number;
  readonly onEvent?: (event: SourceEvent) => void;
}

export const SOURCE_DEFAULTS = { intervalMs: 15_000, jitter: 0.2, maxRestarts: 5, backoffBaseMs: 250, backoffMaxMs: 5_000 } as const;

/** Reads the pod-local token file: a regular file (no link followed) holding exactly one canonical token, no trailing newline (D-78). */
export async function readConsumerToken(path: string): Promise<string | null> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    if (!(await handle.stat()).isFile()) return null;
    const buffer = Buffer.alloc(TOKEN_FILE_MAX_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return tokenOfFileText(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** The wait before the next poll: the interval varied by at most ±`jitter` of itself (clamped to 0..0.5). */
export function jitteredDelay(intervalMs: number, jitter: number, random: number): number {
  const j = Math.min(0.5, Math.max(0, jitter));
  return intervalMs * (1 + j * (2 * Math.min(1, Math.max(0, random)) - 1));
}

/** The wait before restart number `restart` (0-based): exponential, capped, then halved at random at most. */
export function backoffDelay(restart: number, baseMs: number, maxMs: number, random: number): number {
  return Math.min(maxMs, baseMs * 2 ** restart) * (0.5 + Math.min(1, Math.max(0, random)) / 2);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export class EvidenceSource {
  readonly #o: EvidenceSourceOptions;
  readonly #now: () => Date;
  readonly #random: () => number;
  #transport: Transport | null;
  #projection: Projection | null = null;
  #status: SourceStatus;
  #stop = new AbortController();
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;

  constructor(options: EvidenceSourceOptions) {
    this.#o = options;
    this.#now = options.now ?? (() => new Date());
    this.#random = options.random ?? Math.random;
    this.#transport = options.transport ?? null;
    this.#status = { state: 'unknown', reason: 'not-yet-polled', since: this.#now(), lastPollAt: null, restarts: { 'publication-changed': 0, 'cursor-rejected': 0 }, polls: 0 };
  }

  /** The last completely assembled projection, or null before the first. Never a partial walk. */
  projection(): Projection | null {
    return this.#projection;
  }

  status(): SourceStatus {
    return this.#status;
  }

  /** Starts background polling: the first poll at once, then every interval with jitter. */
  start(): void {
    if (this.#timer !== null || this.#running !== null) return;
    const loop = async () => {
      await this.poll();
      if (this.#stop.signal.aborted) return;
      const delay = jitteredDelay(this.#o.intervalMs ?? SOURCE_DEFAULTS.intervalMs, this.#o.jitter ?? SOURCE_DEFAULTS.jitter, this.#random());
      this.#timer = setTimeout(() => void loop(), delay);
    };
    void loop();
  }

  /** Stops polling and waits for a poll in flight to end (it is cancelled). */
  async stop(): Promise<void> {
    this.#stop.abort();
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#running;
  }

  /** One poll now (or joins the one in flight). Never throws. */
  poll(): Promise<void> {
    this.#running ??= this.#pollOnce(this.#stop.signal).finally(() => (this.#running = null));
    return this.#running;
  }

  #settle(reason: SourceReason): void {
    const state = STATE_OF_REASON[reason];
    const same = this.#status.reason === reason;
    this.#status = { ...this.#status, state, reason, since: same ? this.#status.since : this.#now() };
  }

  #emit(event: SourceEvent): void {
    try {
      this.#o.onEvent?.(event);
    } catch {
      // A caller's listener failing must not stop the poller.
    }
  }

  #fail(reason: SourceReason): void {
    this.#settle(reason);
    this.#emit({ type: 'failed', reason });
  }

  async #transportFor(): Promise<Transport | null> {
    if (this.#transport !== null) return this.#transport;
    const token = await readConsumerToken(this.#o.config.tokenFile);
    if (token === null) return null;
    this.#transport = unixSocketTransport({ socketPath: this.#o.config.socketPath, token });
    return this.#transport;
  }

  async #pollOnce(signal: AbortSignal): Promise<void> {
    this.#status = { ...this.#status, lastPollAt: this.#now(), polls: this.#status.polls + 1 };
    const expected = { fingerprint: this.#o.config.expectedFingerprint, server: this.#o.config.server };
    const maxRestarts = this.#o.maxRestarts ?? SOURCE_DEFAULTS.maxRestarts;
    try {
      const transport = await this.#transportFor();
      if (transport === null) return this.#fail('token-unreadable');
      for (let restart = 0; ; restart++) {
        if (signal.aborted) return;
        const read = await readSnapshot(transport, expected, signal);
        const current = this.#projection;
        if (current !== null && current.revision === read.envelope.revision && current.evidenceGeneration === read.envelope.evidence_generation) {
          // Rule 3: no collection request for an unchanged publication identity.
          this.#projection = { ...current, snapshot: read.envelope, details: read.details };
          this.#settle('current');
          this.#emit({ type: 'unchanged', revision: read.envelope.revision, generation: read.envelope.evidence_generation });
          return;
        }
        try {
          const projection = await assembleProjection(transport, read, signal, { ...(this.#o.pageLimit === undefined ? {} : { limit: this.#o.pageLimit }), now: this.#now });
          if (signal.aborted) return;
          this.#projection = projection;
          this.#settle('current');
          this.#emit({ type: 'assembled', revision: projection.revision, generation: projection.evidenceGeneration });
          return;
        } catch (error) {
          if (!(error instanceof PublicationMoved)) throw error;
          // Pagination rule 4: discard the partial walk, back off, start again from the snapshot.
          const cause = error.moveCause;
          this.#status = { ...this.#status, restarts: { ...this.#status.restarts, [cause]: this.#status.restarts[cause] + 1 } };
          this.#emit({ type: 'restart', cause });
          if (restart + 1 > maxRestarts) return this.#fail('publication-churn');
          const base = this.#o.backoffBaseMs ?? SOURCE_DEFAULTS.backoffBaseMs;
          await sleep(backoffDelay(restart, base, this.#o.backoffMaxMs ?? SOURCE_DEFAULTS.backoffMaxMs, this.#random()), signal);
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof TransportFailure) return this.#fail(error.kind);
      if (error instanceof AssemblyFailure) return this.#fail(error.reason);
      // A snapshot that moved before its first page is read is a moved publication too, but it
      // cannot happen outside a walk; anything else unexpected is reported, never thrown.
      return this.#fail(error instanceof PublicationMoved ? 'publication-churn' : 'schema-incompatible');
    }
  }
}
