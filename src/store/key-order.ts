/**
 * The order stores list keys in: UTF-8 byte order. UTF-16 code-unit order (JavaScript's `<`)
 * agrees with it except between surrogates and U+E000–U+FFFF, where the bytes decide.
 */
export function compareKeyBytes(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return x >= 0xd800 || y >= 0xd800 ? Buffer.compare(Buffer.from(a), Buffer.from(b)) : x - y;
  }
  return a.length - b.length;
}
