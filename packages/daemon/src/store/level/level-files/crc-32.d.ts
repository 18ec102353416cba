// crc-32 1.2.2 ships types for its main module (CRC-32) only; its CRC-32C
// module has the same API. The package has no "exports" map, so Node's ESM
// resolver needs the file's own name, extension included; and the module
// fills `exports` from inside a factory, which Node's CommonJS lexer cannot
// see, so ESM code gets its functions through the default import only.
declare module 'crc-32/crc32c.js' {
  /** The CRC-32C functions of crc-32 1.2.2. */
  interface Crc32c {
    /** CRC-32C of `data`, continuing from `seed`; a signed 32-bit int (`>>> 0` for unsigned). */
    buf(data: Uint8Array, seed?: number): number;
    /** CRC-32C of a binary string. */
    bstr(data: string, seed?: number): number;
    /** CRC-32C of a string's UTF-8 bytes. */
    str(data: string, seed?: number): number;
    /** The package version. */
    readonly version: string;
  }
  const crc32c: Crc32c;
  export default crc32c;
}
