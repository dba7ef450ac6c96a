/**
 * XML text as the listing parsers read it (S3's list-objects-parser.ts, Azure's
 * list-blobs-parser.ts): the five predefined entities and decimal and hexadecimal character
 * references decoded. Anything else an `&` starts (a bare `&`, an unknown entity, a reference
 * beyond U+10FFFF) is refused through the caller's own error, so that no text is read as what it
 * does not say.
 */
const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** `s` with its references decoded; `refuse(reason)` makes the error thrown for one that cannot be. */
export function decodeXmlReferences(s: string, refuse: (reason: string) => Error): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(?:#x([0-9a-fA-F]{1,6})|#(\d{1,7})|([a-zA-Z][a-zA-Z0-9]{0,30}))?(;)?/g, (_m, hex: string | undefined, dec: string | undefined, named: string | undefined, semi: string | undefined) => {
    if (semi === undefined) throw refuse('a bare ampersand');
    if (hex !== undefined || dec !== undefined) {
      const code = hex !== undefined ? parseInt(hex, 16) : parseInt(dec as string, 10);
      if (code > 0x10ffff) throw refuse('a character reference out of range');
      return String.fromCodePoint(code);
    }
    const value = named === undefined ? undefined : ENTITIES[named];
    if (value === undefined) throw refuse('an unknown entity');
    return value;
  });
}
