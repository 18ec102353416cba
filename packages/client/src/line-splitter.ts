import { Limits } from '@memoryd/protocol';

/** Longest response line accepted, in bytes without its `\n` (DESIGN.md: 8 MiB). */
export const MAX_LINE_BYTES = Limits.maxLineBytes;

const NEWLINE = 0x0a;

/**
 * Splits the daemon's byte stream into NDJSON lines. Bytes are kept until a
 * `\n` arrives, so a multi-byte character split across chunks decodes
 * whole. A line that grows past the limit is reported as `'overflow'` and
 * nothing more is split: the stream can no longer be trusted, so the
 * caller drops the connection rather than buffer without bound.
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

  private overflow(): 'overflow' {
    this.overflowed = true;
    this.parts = [];
    this.size = 0;
    return 'overflow';
  }
}
