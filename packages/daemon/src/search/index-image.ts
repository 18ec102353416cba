import { crc32 } from 'node:zlib';

/** The typed arrays an index is made of. */
export type ImageArray = Uint8Array | Uint32Array | Int32Array | Float64Array;

/**
 * An index as data: its typed arrays, and everything else as JSON. What a
 * worker hands back after building an index (the arrays' buffers move,
 * not copied) and what an image file holds.
 */
export interface IndexSnapshot {
  meta: Record<string, unknown>;
  arrays: Record<string, ImageArray>;
}

const MAGIC = 'memoryd-index\n';
const KINDS = { u8: Uint8Array, u32: Uint32Array, i32: Int32Array, f64: Float64Array } as const;
type Kind = keyof typeof KINDS;

function kindOf(a: ImageArray): Kind {
  if (a instanceof Uint8Array) return 'u8';
  if (a instanceof Uint32Array) return 'u32';
  if (a instanceof Int32Array) return 'i32';
  return 'f64';
}

interface Header {
  meta: Record<string, unknown>;
  arrays: Array<{ name: string; kind: Kind; offset: number; length: number }>;
}

/**
 * An image file's bytes, as chunks to write in order (the arrays are not
 * copied): the magic line, a 4-byte header length, the JSON header, the
 * arrays each at an 8-byte aligned offset, and a CRC-32 of all that, so a
 * torn or damaged file is found at load.
 */
export function encodeImage(snapshot: IndexSnapshot): Uint8Array[] {
  const header: Header = { meta: snapshot.meta, arrays: [] };
  // Offsets count from the start of the data area (after the header, aligned).
  let offset = 0;
  for (const [name, a] of Object.entries(snapshot.arrays)) {
    header.arrays.push({ name, kind: kindOf(a), offset, length: a.length });
    offset += Math.ceil(a.byteLength / 8) * 8;
  }
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const head = Buffer.alloc(Math.ceil((MAGIC.length + 4 + json.length) / 8) * 8);
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(json.length, MAGIC.length);
  json.copy(head, MAGIC.length + 4);
  const chunks: Uint8Array[] = [head];
  let crc = crc32(head);
  for (const a of Object.values(snapshot.arrays)) {
    const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    chunks.push(bytes);
    // Node 20.20's crc32 answers 0, not the running value, for a view of a zero-length buffer
    // (an index without tags has an empty tag array): nothing to add is left out.
    if (bytes.byteLength > 0) crc = crc32(bytes, crc);
    const pad = Math.ceil(a.byteLength / 8) * 8 - a.byteLength;
    if (pad > 0) {
      const zeros = new Uint8Array(pad);
      chunks.push(zeros);
      crc = crc32(zeros, crc);
    }
  }
  const tail = Buffer.alloc(4);
  tail.writeUInt32LE(crc >>> 0, 0);
  chunks.push(tail);
  return chunks;
}

/** Whether an image file's CRC-32 (its last 4 bytes) matches the rest of it. */
export function checksumHolds(file: Buffer): boolean {
  if (file.length < 4) return false;
  return crc32(file.subarray(0, file.length - 4)) >>> 0 === file.readUInt32LE(file.length - 4);
}

/**
 * The snapshot an image file holds, its arrays viewing `file` (no copy);
 * throws when the file is not a whole, intact image. `checked`: the
 * caller found {@link checksumHolds} of these very bytes, so the CRC is
 * not computed again.
 */
export function decodeImage(file: Buffer, checked = false): IndexSnapshot {
  // Typed array views need aligned offsets: a buffer of its own has them.
  const bytes = file.byteOffset % 8 === 0 ? file : Buffer.from(file);
  if (bytes.length < MAGIC.length + 8 || bytes.toString('latin1', 0, MAGIC.length) !== MAGIC) throw new Error('not a memoryd index image');
  const body = bytes.subarray(0, bytes.length - 4);
  if (!checked && !checksumHolds(bytes)) throw new Error('checksum mismatch: the image is torn or damaged');
  const jsonLength = bytes.readUInt32LE(MAGIC.length);
  const header = JSON.parse(bytes.toString('utf8', MAGIC.length + 4, MAGIC.length + 4 + jsonLength)) as Header;
  const dataStart = Math.ceil((MAGIC.length + 4 + jsonLength) / 8) * 8;
  const arrays: Record<string, ImageArray> = {};
  for (const { name, kind, offset, length } of header.arrays) {
    const Kind = KINDS[kind];
    const start = bytes.byteOffset + dataStart + offset;
    if (Kind === undefined || dataStart + offset + length * Kind.BYTES_PER_ELEMENT > body.length) throw new Error(`array ${name} lies outside the image`);
    arrays[name] = new Kind(bytes.buffer as ArrayBuffer, start, length);
  }
  return { meta: header.meta, arrays };
}
