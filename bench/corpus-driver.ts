/**
 * The in-process listing source: a read-only `StoreDriver` over a `Corpus`, with S3's listing
 * semantics (prefix, `/` delimiter, StartAfter, continuation tokens, 1,000-key pages). It builds
 * each page from the corpus's groups on demand and holds no key list, so a 1 M-key scan measures
 * the code after the driver (classification, compaction, evidence) and not a store's memory.
 */
import type { ListPage, ListRequest, ReadRequest, ReadResult, StoreDriver, StoreObject, StreamResult } from '../src/store/driver.ts';
import { chunksOf, readWhole } from '../src/store/read-stream.ts';
import type { GroupedCorpus } from './corpus.ts';

/** The smallest string greater than every key that starts with `prefix` (ASCII keys). */
function pastPrefix(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

export class CorpusDriver implements StoreDriver {
  readonly capabilities = { startAfter: 'native' } as const;
  readonly #corpus: GroupedCorpus;
  requests = 0;

  constructor(corpus: GroupedCorpus) {
    this.#corpus = corpus;
  }

  listPage(r: ListRequest): Promise<ListPage> {
    this.requests += 1;
    const c = this.#corpus;
    const max = r.maxKeys ?? 1000;
    // The token is the last key or common prefix handed out; a prefix resumes past all its keys.
    let index: number;
    if (r.continuationToken !== undefined) {
      const token = r.continuationToken;
      index = token.endsWith('/') ? c.seek(pastPrefix(token), true) : c.seek(token);
    } else {
      index = c.seek(r.prefix, true);
      if (r.startAfter !== undefined && r.startAfter >= r.prefix) index = Math.max(index, c.seek(r.startAfter));
    }
    const objects: StoreObject[] = [];
    const prefixes: string[] = [];
    let last: string | null = null;
    let more = false;
    // Past a common prefix the walk restarts at the next key that does not start with it.
    walk: for (;;) {
      for (const o of c.from(index)) {
        if (!o.key.startsWith(r.prefix)) break walk;
        if (objects.length + prefixes.length === max) {
          more = true;
          break walk;
        }
        const slash = r.delimiter === undefined ? -1 : o.key.indexOf('/', r.prefix.length);
        if (slash === -1) {
          objects.push({ key: o.key, size: o.size, lastModified: o.lastModified });
          last = o.key;
          index += 1;
          continue;
        }
        const common = o.key.slice(0, slash + 1);
        prefixes.push(common);
        last = common;
        index = c.seek(pastPrefix(common), true);
        continue walk;
      }
      break;
    }
    if (!more) last = null;
    return Promise.resolve({ objects, prefixes, nextToken: last, storeTime: null });
  }

  read(r: ReadRequest): Promise<ReadResult> {
    return readWhole(this.readStream(r));
  }

  readStream(r: ReadRequest): Promise<StreamResult> {
    const o = this.#corpus.at(this.#corpus.seek(r.key, true));
    if (o?.key !== r.key) return Promise.resolve({ status: 'absent' });
    if (o.size > r.maxBytes) return Promise.resolve({ status: 'too-large', size: o.size });
    const body = o.body();
    return Promise.resolve({ status: 'found', size: body.byteLength, chunks: chunksOf(body) });
  }

  close(): void {}
}
