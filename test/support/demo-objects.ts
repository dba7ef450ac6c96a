/**
 * The embedded demo repository as real objects, for tests that copy it into a real store (Swift,
 * Azurite, the GCS emulator). The demo's segments and archives are sparse in memory (listed at the
 * sizes real ones have, holding a few bytes); a real store has no sparse objects, so each body is
 * padded with zeros to its listed size. The demo keeps its WAL compressed, so this stays small.
 */
import { demoRepository } from '../../src/format/barman-cloud/demo-repository.ts';

export interface DemoObject {
  readonly key: string;
  readonly body: Uint8Array;
}

/** Every object of the demo, in key order, with a body of exactly its listed size. */
export async function demoObjects(): Promise<DemoObject[]> {
  const source = demoRepository();
  const signal = new AbortController().signal;
  const out: DemoObject[] = [];
  let token: string | undefined;
  do {
    const page = await source.listPage({ prefix: '', signal, ...(token === undefined ? {} : { continuationToken: token }) });
    for (const o of page.objects) {
      const r = await source.read({ key: o.key, maxBytes: o.size, signal });
      if (r.status !== 'found') throw new Error('the demo lost an object it listed');
      const body = new Uint8Array(o.size);
      body.set(r.bytes.subarray(0, o.size));
      out.push({ key: o.key, body });
    }
    token = page.nextToken ?? undefined;
  } while (token !== undefined);
  return out;
}
