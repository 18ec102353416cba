import type { IndexSnapshot } from '../../search/index-image.js';

/** What index-builder.ts sends the index worker, in this order: begin, facts..., end. */
export type BuildRequest =
  | { type: 'begin'; agentId: string; length: number }
  | { type: 'facts'; agentId: string; ids: string[]; texts: string[] }
  | { type: 'end' };

/** What the worker answers: an ack per facts message, then the index, or an error. */
export type BuildReply =
  | { type: 'ack' }
  | { type: 'done'; snapshot: IndexSnapshot; facts: number }
  | { type: 'error'; name: string; message: string; code: string | undefined };
