// Minimal declarations of the untyped decompressors viewer uses (only the calls it makes).
declare module 'seek-bzip' {
  interface OutputStream {
    writeByte(byte: number): void;
  }
  const Bunzip: { decode(input: Uint8Array, output: OutputStream, multistream?: boolean): void };
  export default Bunzip;
}
declare module 'snappyjs' {
  export function uncompress(compressed: Uint8Array, maxLength?: number): Uint8Array;
}
declare module 'lz4js' {
  export function decompress(src: Uint8Array, maxSize?: number): Uint8Array;
}
