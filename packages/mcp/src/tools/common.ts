import { Timestamp, Ulid } from '@memoryd/protocol';
import { Type } from '@sinclair/typebox';

// Output fields shared by several tools. Outputs describe what comes back
// (inputs reuse the protocol primitives, which describe the limits); ids
// and times keep the protocol's patterns and never use `format`.

/** `agent_id` echoed back in a result. */
export const AgentIdOut = Type.String({ description: 'The agent id the call was for, as given.' });

/** A ULID in a result, described by what it identifies. */
export function IdOut(description: string) {
  return Type.String({ pattern: Ulid.pattern, description });
}

/** An RFC 3339 UTC time with milliseconds in a result. */
export function TimeOut(description: string) {
  return Type.String({ pattern: Timestamp.pattern, description });
}
