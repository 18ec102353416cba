import { Limits } from './limits.js';

/** Longest NDJSON line, in bytes without its `\n` (docs/protocol.md "Framing": 8 MiB). */
export const MAX_LINE_BYTES = Limits.maxLineBytes;

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into NDJSON lines: the framing both ends of the
 * socket share. Bytes are kept until a `\n` arrives, so a multi-byte
 * character split across chunks decodes whole (`decode` turns a line's
 * bytes into text: `Buffer#toString` on Node). A line that grows past the
 * limit is reported once as `'overflow'` and nothing more is split: the
 * caller closes the connection rather than buffer without bound. Pure: no
 * I/O, no Node types, like the rest of this package.
 */
export class LineSplitter {
  private parts: Uint8Array[] = [];
  private size = 0;
  private overflowed = false;

  constructor(
    private readonly decode: (bytes: Uint8Array) => string,
    private readonly maxLineBytes: number = MAX_LINE_BYTES,
  ) {}

  /** Feeds a chunk; returns the complete lines it finished, or `'overflow'`. */
  push(chunk: Uint8Array): string[] | 'overflow' {
    if (this.overflowed) return 'overflow';
    const lines: string[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE, start); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, nl);
      if (this.size + piece.length > this.maxLineBytes) return this.overflow();
      if (this.size === 0) {
        lines.push(this.decode(piece));
      } else {
        this.parts.push(piece);
        lines.push(this.decode(this.take()));
      }
      start = nl + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      if (this.size + rest.length > this.maxLineBytes) return this.overflow();
      // Copy: a socket may reuse its buffer after this call returns.
      this.parts.push(rest.slice());
      this.size += rest.length;
    }
    return lines;
  }

  /** Drops what is kept and splits nothing more: the caller is closing the stream. */
  discard(): void {
    this.overflow();
  }

  /** Bytes of the line not yet finished (kept until its `\n`). */
  get pending(): number {
    return this.size;
  }

  /** The unterminated last line, when the peer ends without `\n` (still a line). */
  end(): string | undefined {
    if (this.overflowed || this.size === 0) return undefined;
    return this.decode(this.take());
  }

  /** Joins the kept parts into one line and empties the buffer. */
  private take(): Uint8Array {
    const size = this.parts.reduce((n, p) => n + p.length, 0);
    const line = new Uint8Array(size);
    let at = 0;
    for (const p of this.parts) {
      line.set(p, at);
      at += p.length;
    }
    this.parts = [];
    this.size = 0;
    return line;
  }

  private overflow(): 'overflow' {
    this.overflowed = true;
    this.parts = [];
    this.size = 0;
    return 'overflow';
  }
}
