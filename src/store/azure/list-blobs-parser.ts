/**
 * A purpose-built parser of Azure Blob Storage's List Blobs answers (issue 28): it reads only what
 * the scanner uses (each blob's `Name`, `Properties/Content-Length` and `Properties/Last-Modified`,
 * each `BlobPrefix/Name`, and `NextMarker`) and builds one `StoreObject` per blob and nothing else.
 * The SDK's own path (fast-xml-parser into a tree, then core-client's mapper into about thirty
 * properties per blob) cost about 150 µs of CPU per listed key (`bench/provider-list-cpu.ts`),
 * thirty times S3's with viewer's parser.
 *
 * What it gives is what the SDK gives (`@azure/core-xml` with `trimValues: false`, then
 * `mapBlobItemInternal`) on every well-formed answer: texts untrimmed, the five predefined entities
 * and character references decoded, CDATA kept as written, comments and processing instructions
 * dropped; a name marked `Encoded="true"` percent-decoded (`decodeURIComponent`), as Azure marks a
 * name XML cannot carry; `Last-Modified` read as the HTTP date it is (`store-time.ts`'s
 * `parseHttpDate`, where the SDK takes `new Date(text)`, which agrees on every such date).
 *
 * Where the SDK would guess, it refuses, so that no answer can pass for a shorter listing: each
 * refusal is a `StoreError` `incompatible_format`. Refused: a body cut short, a root other than
 * `EnumerationResults`, a tag not closed by its own name, a DOCTYPE, an unknown entity or a bare
 * `&`, a blob or a prefix without a `Name`, a field given twice, a field holding elements, an
 * attribute on a field other than `Name`'s `Encoded`, a percent-encoding that is not well formed,
 * anything but whitespace, comments and processing instructions outside the root, elements nested
 * deeper than 32. A `Content-Length` that is not decimal digits becomes NaN (the SDK: `parseFloat`,
 * so `12abc` would be 12), which the confined driver refuses like a missing one; a `Last-Modified`
 * that is no HTTP date becomes null (unknown), never a guessed time.
 */
import { StoreError } from '../../common/errors.ts';
import type { StoreObject } from '../driver.ts';
import { STORE_MESSAGES } from '../messages.ts';
import { parseHttpDate } from '../store-time.ts';
import { decodeXmlReferences } from '../xml-text.ts';

/** One List Blobs answer as the driver uses it; names decoded. */
export interface ParsedBlobListing {
  readonly objects: StoreObject[];
  readonly prefixes: string[];
  /** `NextMarker`'s text (`''` on the last page), or null when the answer has none. */
  readonly nextMarker: string | null;
}

/** The refusal every malformed answer gets; `reason` is viewer's own text (never body text). */
export function malformedBlobListing(reason: string): StoreError {
  return new StoreError('incompatible_format', STORE_MESSAGES.incompatible_format, { cause: new Error(`List Blobs answer refused: ${reason}`) });
}

// What an open element is to the parser.
const R_ROOT = 1, R_BLOBS = 2, R_BLOB = 3, R_PROPERTIES = 4, R_PREFIX = 5, R_SKIP = 6, R_LEAF = 7;
// Which field a leaf fills.
const F_NAME = 1, F_SIZE = 2, F_MODIFIED = 3, F_PREFIX_NAME = 4, F_NEXT = 5;
const MAX_DEPTH = 32;

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** Parses one whole List Blobs body (the SDK's transport hands it over as text). */
export function parseListBlobs(xml: string): ParsedBlobListing {
  const objects: StoreObject[] = [];
  const prefixes: string[] = [];
  let nextMarker: string | null = null;
  const names: string[] = [];
  const roles: number[] = [];
  let rootSeen = false;
  let rootClosed = false;
  // The open leaf: its field, whether its name is encoded, its text so far.
  let field = 0;
  let encoded = false;
  let text = '';
  // The blob or prefix being read.
  let name: string | null = null;
  let size = Number.NaN;
  let sizeSeen = false;
  let modified: Date | null = null;
  let modifiedSeen = false;

  const finishLeaf = (): void => {
    if (field === F_NAME || field === F_PREFIX_NAME) {
      if (name !== null) throw malformedBlobListing('a name given twice');
      let value = text;
      if (encoded) {
        try {
          value = decodeURIComponent(text);
        } catch {
          throw malformedBlobListing('an encoded name that is no percent-encoding');
        }
      }
      name = value;
    } else if (field === F_SIZE) {
      if (sizeSeen) throw malformedBlobListing('a blob with two sizes');
      sizeSeen = true;
      size = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
    } else if (field === F_MODIFIED) {
      if (modifiedSeen) throw malformedBlobListing('a blob with two times');
      modifiedSeen = true;
      modified = parseHttpDate(text);
    } else if (field === F_NEXT) {
      if (nextMarker !== null) throw malformedBlobListing('two NextMarker');
      nextMarker = text;
    }
  };

  const n = xml.length;
  let i = 0;
  while (i < n) {
    const lt = xml.indexOf('<', i);
    const end = lt === -1 ? n : lt;
    if (end > i) {
      if (field !== 0) text += decodeXmlReferences(xml.slice(i, end), malformedBlobListing);
      else if (names.length === 0) outsideText(xml, i, end);
    }
    if (lt === -1) break;
    i = lt;
    if (xml.startsWith('<?', i)) {
      const e = xml.indexOf('?>', i + 2);
      if (e === -1) throw malformedBlobListing('a processing instruction cut short');
      i = e + 2;
    } else if (xml.startsWith('<!--', i)) {
      const e = xml.indexOf('-->', i + 4);
      if (e === -1) throw malformedBlobListing('a comment cut short');
      i = e + 3;
    } else if (xml.startsWith('<![CDATA[', i)) {
      const e = xml.indexOf(']]>', i + 9);
      if (e === -1) throw malformedBlobListing('a CDATA section cut short');
      if (field !== 0) text += xml.slice(i + 9, e);
      else if (names.length === 0) throw malformedBlobListing('text outside the listing');
      i = e + 3;
    } else if (xml.startsWith('<!', i)) {
      throw malformedBlobListing('a DOCTYPE or other declaration');
    } else if (xml.startsWith('</', i)) {
      const e = xml.indexOf('>', i + 2);
      if (e === -1) throw malformedBlobListing('the body ends before the listing does');
      const closing = xml.slice(i + 2, e).trim();
      const open = names.pop();
      const role = roles.pop();
      if (open === undefined || open !== closing) throw malformedBlobListing('mismatched tags');
      if (role === R_LEAF) {
        finishLeaf();
        field = 0;
      } else if (role === R_BLOB) {
        if (name === null) throw malformedBlobListing('a blob without a name');
        objects.push({ key: name, size, lastModified: modified });
      } else if (role === R_PREFIX) {
        if (name === null) throw malformedBlobListing('a prefix without a name');
        prefixes.push(name);
      } else if (role === R_ROOT) {
        rootClosed = true;
      }
      i = e + 1;
    } else {
      if (rootClosed) throw malformedBlobListing('an element after the listing');
      // An opening tag: its name, then attributes up to the `>` outside quotes.
      let k = i + 1;
      while (k < n) {
        const c = xml.charCodeAt(k);
        if (c === 0x3e || c === 0x2f || isSpace(c)) break;
        k++;
      }
      const tag = xml.slice(i + 1, k);
      if (tag === '') throw malformedBlobListing('a tag without a name');
      let quote = 0;
      const attrStart = k;
      for (; k < n; k++) {
        const c = xml.charCodeAt(k);
        if (quote !== 0) {
          if (c === quote) quote = 0;
        } else if (c === 0x22 || c === 0x27) {
          quote = c;
        } else if (c === 0x3e) {
          break;
        }
      }
      if (k >= n) throw malformedBlobListing('the body ends before the listing does');
      const selfClosing = xml.charCodeAt(k - 1) === 0x2f && k - 1 >= attrStart;
      const attributes = xml.slice(attrStart, selfClosing ? k - 1 : k).trim();
      i = k + 1;
      const depth = names.length;
      if (depth >= MAX_DEPTH) throw malformedBlobListing('elements nested too deep');
      const parent = depth === 0 ? 0 : (roles[depth - 1] as number);
      let role = R_SKIP;
      let leaf = 0;
      if (depth === 0) {
        if (rootSeen) throw malformedBlobListing('a second root element');
        if (tag !== 'EnumerationResults') throw malformedBlobListing('a root that is no EnumerationResults');
        rootSeen = true;
        role = R_ROOT;
      } else if (parent === R_ROOT) {
        if (tag === 'Blobs') role = R_BLOBS;
        else if (tag === 'NextMarker') leaf = F_NEXT;
      } else if (parent === R_BLOBS) {
        if (tag === 'Blob') role = R_BLOB;
        else if (tag === 'BlobPrefix') role = R_PREFIX;
      } else if (parent === R_BLOB) {
        if (tag === 'Name') leaf = F_NAME;
        else if (tag === 'Properties') role = R_PROPERTIES;
      } else if (parent === R_PROPERTIES) {
        if (tag === 'Content-Length') leaf = F_SIZE;
        else if (tag === 'Last-Modified') leaf = F_MODIFIED;
      } else if (parent === R_PREFIX) {
        if (tag === 'Name') leaf = F_PREFIX_NAME;
      } else if (parent === R_LEAF) {
        throw malformedBlobListing('an element inside a field');
      }
      if (leaf !== 0) {
        role = R_LEAF;
        encoded = false;
        if (attributes !== '') {
          const m = /^Encoded\s*=\s*(?:"([^"]*)"|'([^']*)')$/.exec(attributes);
          if (m === null || (leaf !== F_NAME && leaf !== F_PREFIX_NAME)) throw malformedBlobListing('a field with attributes');
          encoded = (m[1] ?? m[2]) === 'true';
        }
      }
      if (role === R_BLOB || role === R_PREFIX) {
        name = null;
        size = Number.NaN;
        sizeSeen = false;
        modified = null;
        modifiedSeen = false;
      }
      if (selfClosing) {
        if (role === R_LEAF) {
          field = leaf;
          text = '';
          finishLeaf();
          field = 0;
        } else if (role === R_BLOB) {
          throw malformedBlobListing('a blob without a name');
        } else if (role === R_PREFIX) {
          throw malformedBlobListing('a prefix without a name');
        } else if (role === R_ROOT) {
          rootClosed = true;
        }
        continue;
      }
      names.push(tag);
      roles.push(role);
      if (role === R_LEAF) {
        field = leaf;
        text = '';
      }
    }
  }
  if (!rootClosed) throw malformedBlobListing(rootSeen ? 'the body ends before the listing does' : 'no listing element');
  return { objects, prefixes, nextMarker };
}

function outsideText(xml: string, s: number, e: number): void {
  for (let k = s; k < e; k++) if (!isSpace(xml.charCodeAt(k))) throw malformedBlobListing('text outside the listing');
}

