/**
 * Preloaded into Azurite (`NODE_OPTIONS=--import=<AZURITE_ENCODED_NAMES>`) so that it lists blob
 * names XML cannot carry the way Azure does. Azure (service version 2021-02-12 on) sends such a
 * name as `<Name Encoded="true">` holding the percent-encoded UTF-8 name, and its continuation
 * marker is opaque; Azurite 3.37 writes every name and marker raw, so one such name makes the
 * whole List Blobs answer a 500. Here a `Name` holding a character outside XML 1.0's `Char` or any
 * C0 control becomes `Encoded="true"` + `encodeURIComponent(name)`, and markers travel
 * base64url-wrapped (unwrapped again when they come back). Everything else is Azurite's own.
 *
 * Azure itself refuses names with C0 controls at upload (400); the names it encodes are those
 * holding U+FFFE or U+FFFF. The C0 controls are encoded here too, tab, line feed and carriage
 * return included: raw, a carriage return would not come back (Azurite writes `&#xD;`, which the
 * SDK's XML parser leaves undecoded). The SDK path that decodes an encoded name is the same.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The `--import` specifier of this file. */
export const AZURITE_ENCODED_NAMES = pathToFileURL(import.meta.filename).href;

/** A C0 control, or anything else XML 1.0 cannot carry (outside `Char`, lone surrogates included). */
function needsEncoding(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 0x20 || c === 0xfffe || c === 0xffff) return true;
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = name.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
      i += 1;
    } else if (c >= 0xdc00 && c <= 0xdfff) return true;
  }
  return false;
}
const OPAQUE = 'opaque:';

interface XmlBuilder {
  buildObject: (this: XmlBuilder, body: unknown) => string;
}
type ListHandler = (this: unknown, ...args: unknown[]) => Promise<{ nextMarker?: string; marker?: string }>;

function encodeNames(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(encodeNames);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [k, k === 'Name' && typeof v === 'string' && needsEncoding(v) ? { $: { Encoded: 'true' }, _: encodeURIComponent(v) } : encodeNames(v)]),
  );
}

// Only an Azurite process loads this with Azurite's modules resolvable; a test importing it for
// the specifier installs nothing.
if (process.argv[1]?.includes(join('azurite', 'dist'))) {
  const azurite = createRequire(process.argv[1]);
  const xml2js = azurite('xml2js') as { Builder: { prototype: XmlBuilder } };
  const build = xml2js.Builder.prototype.buildObject;
  xml2js.Builder.prototype.buildObject = function (body) {
    return build.call(this, encodeNames(body));
  };

  const handlers = azurite(join(dirname(process.argv[1]), 'handlers', 'ContainerHandler.js')) as { default: { prototype: Record<string, ListHandler> } };
  const proto = handlers.default.prototype;
  for (const [method, optionsAt] of [['listBlobFlatSegment', 0], ['listBlobHierarchySegment', 1]] as const) {
    const list = proto[method];
    if (list === undefined) throw new Error(`Azurite has no ${method}`);
    proto[method] = async function (...args) {
      const options = args[optionsAt] as { marker?: string };
      const asked = options.marker;
      if (asked?.startsWith(OPAQUE) === true) options.marker = Buffer.from(asked.slice(OPAQUE.length), 'base64url').toString();
      const response = await list.apply(this, args);
      if (response.nextMarker !== undefined && response.nextMarker !== '') response.nextMarker = OPAQUE + Buffer.from(response.nextMarker).toString('base64url');
      if (asked !== undefined) response.marker = asked;
      return response;
    };
  }
}
