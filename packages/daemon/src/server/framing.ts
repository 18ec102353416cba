import { Limits } from '@memoryd/protocol';

/** Longest line accepted, in bytes, without its `\n` (DESIGN.md: 8 MiB). */
export const MAX_LINE_BYTES = Limits.maxLineBytes;

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into NDJSON lines. Bytes are kept until a `\n`
 * arrives, so a multi-byte character split across chunks decodes whole.
 * A line that grows past {@link MAX_LINE_BYTES} is reported once through
 * `overflow` and nothing more is split: the caller closes the connection.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private overflowed = false;

  constructor(private readonly maxLineBytes: number = MAX_LINE_BYTES) {}

  /** Feeds a chunk; returns the complete lines it finished, or `'overflow'`. */
  push(chunk: Buffer): string[] | 'overflow' {
    if (this.overflowed) return 'overflow';
    const lines: string[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE, start); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, nl);
      if (this.size + piece.length > this.maxLineBytes) return this.overflow();
      if (this.size === 0) {
        lines.push(piece.toString('utf8'));
      } else {
        this.parts.push(piece);
        lines.push(Buffer.concat(this.parts, this.size + piece.length).toString('utf8'));
        this.parts = [];
        this.size = 0;
      }
      start = nl + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      if (this.size + rest.length > this.maxLineBytes) return this.overflow();
      // Copy: the socket may reuse its buffer after this call returns.
      this.parts.push(Buffer.from(rest));
      this.size += rest.length;
    }
    return lines;
  }

  /** The unterminated last line, when the peer ends without `\n` (still answered). */
  end(): string | undefined {
    if (this.overflowed || this.size === 0) return undefined;
    const text = Buffer.concat(this.parts, this.size).toString('utf8');
    this.parts = [];
    this.size = 0;
    return text;
  }

  private overflow(): 'overflow' {
    this.overflowed = true;
    this.parts = [];
    this.size = 0;
    return 'overflow';
  }
}
