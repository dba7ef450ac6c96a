/**
 * Reading an object's body, one way for every provider: a driver opens the object
 * (`readStream`) and hands its body over as chunks through `boundedBody`, which holds the byte
 * ceiling the caller gave, turns a failure in the middle of the body (a reset connection, a
 * timeout) into a `StoreError` of the provider's category — never the provider's text — and
 * releases the connection when the reader stops early. `readWhole` collects such a stream for
 * the small objects read in one piece (metadata files); large ones (pgBackRest manifests) are
 * parsed chunk by chunk and never held whole.
 */
import { StoreError } from '../common/errors.ts';
import type { ReadResult, StreamResult } from './driver.ts';

/**
 * The body as chunks of at most what was declared: more bytes than the object's listed or
 * declared size (`declared`, never above the caller's ceiling) is a store answering out of its
 * contract (`incompatible_format`); fewer is a truncated body (`unavailable`: the transfer broke).
 */
export async function* boundedBody(body: AsyncIterable<Uint8Array>, declared: number, toError: (error: unknown) => StoreError, release: () => void): AsyncGenerator<Uint8Array> {
  let total = 0;
  let done = false;
  try {
    for await (const chunk of body) {
      total += chunk.byteLength;
      if (total > declared) throw new StoreError('incompatible_format', 'the store sent more bytes than the object holds');
      if (chunk.byteLength > 0) yield chunk;
    }
    done = true;
  } catch (error) {
    throw error instanceof StoreError ? error : toError(error);
  } finally {
    // Stopped early (the reader broke off, or a failure): the connection is not read to its end.
    if (!done) release();
  }
  if (total < declared) throw new StoreError('unavailable', 'the store ended the object before its declared size');
}

/** Chunks of an in-memory body, as a store would send them. */
export async function* chunksOf(bytes: Uint8Array, chunkSize = 64 * 1024): AsyncGenerator<Uint8Array> {
  await Promise.resolve();
  for (let i = 0; i < bytes.byteLength; i += chunkSize) yield bytes.subarray(i, Math.min(bytes.byteLength, i + chunkSize));
}

/** A stream read whole: the small objects' read. */
export async function readWhole(opened: Promise<StreamResult>): Promise<ReadResult> {
  const r = await opened;
  if (r.status !== 'found') return r;
  const parts: Uint8Array[] = [];
  for await (const chunk of r.chunks) parts.push(chunk);
  return { status: 'found', bytes: parts.length === 1 ? (parts[0] as Uint8Array) : Buffer.concat(parts) };
}
