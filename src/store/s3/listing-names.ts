/**
 * Object names in an S3 listing asked for with `EncodingType=url`, the only form in which XML can
 * carry every key (control characters, for one, cannot appear in XML 1.0 at all). S3 encodes a
 * name the way HTML forms encode a value: UTF-8 bytes, `%XX` for the bytes it escapes and `+` for
 * a space (AWS: `a b` → `a+b`, `a+b` → `a%2Bb`, `100%` → `100%25`; OpenStack Swift writes `%20`
 * for a space, which decodes the same). The inverse is exactly botocore's, and so Barman's:
 * `urllib.parse.unquote_plus`, applied only when the reply says `<EncodingType>url</EncodingType>`
 * (a store that ignores the parameter sends names as they are). A name that is not well formed
 * (a `%` without two hex digits, bytes that are not UTF-8) is refused, not guessed: the caller's
 * error is a `URIError` whose text never holds the name.
 */

/** The decoded name; `encodingType` is the reply's `EncodingType` element. Throws `URIError` on a malformed name. */
export function listedName(name: string, encodingType: string | undefined): string {
  // Nearly every key of a repository (WAL segments, backup files) has nothing encoded.
  if (encodingType !== 'url' || (!name.includes('%') && !name.includes('+'))) return name;
  return decodeURIComponent(name.replaceAll('+', ' '));
}
