import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { MemoryBackend } from '../backend.js';
import type { JsonSchemaObject } from '../schema.js';

/** What `checkpoint_resume` does when the agent has no checkpoint. */
export type OnMissing = 'error' | 'empty';

/** What every tool handler may use. */
export interface ToolContext {
  /** The daemon, reached lazily: the first call connects (and may autostart it). */
  readonly backend: MemoryBackend;
  /** `on_missing` of `checkpoint_resume` when the call does not say (`--resume-on-missing`). */
  readonly resumeOnMissing: OnMissing;
}

/** The single text block every result carries. */
export interface TextBlock {
  type: 'text';
  text: string;
}

/** A success: the whole answer as `structuredContent`, its prose as the only text. */
export interface ToolSuccess {
  [key: string]: unknown;
  content: [TextBlock];
  structuredContent: Record<string, unknown>;
}

/**
 * A failure: `isError` and text only. Never `structuredContent`: a
 * structured error that does not match the success schema makes strict
 * clients reject the whole response, hiding the error (ADR 0005).
 */
export interface ToolFailure {
  [key: string]: unknown;
  content: [TextBlock];
  isError: true;
}

/** What a tool call returns. */
export type ToolResult = ToolSuccess | ToolFailure;

/** MCP tool annotations: hints for clients, never relied on for safety. */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * One MCP tool: the TypeBox types of its input and output (the published
 * schemas are generated from them), what an agent reads about it, and its
 * handler, which receives input already validated against `input`.
 */
export interface ToolDefinition<I extends TObject = TObject> {
  /** The tool name (snake_case); part of the contract. */
  readonly name: string;
  /** A short human title. */
  readonly title: string;
  /** When an agent should use the tool and what comes back. */
  readonly description: string;
  readonly hints: ToolHints;
  /** The input type; its JSON Schema is the published `inputSchema`. */
  readonly input: I;
  /** The published `outputSchema`: plain JSON generated from the output type(s). */
  readonly outputSchema: JsonSchemaObject;
  /**
   * Runs the tool on validated input. Returns a failure it words itself
   * (absence, version skew); throws a daemon or client error, which the
   * server words as `TOOL error: CAUSE` (or the client's unavailable text).
   */
  run(args: Static<I>, ctx: ToolContext): Promise<ToolResult>;
}

/** Declares a tool, keeping its input type for the handler. */
export function defineTool<I extends TObject>(tool: ToolDefinition<I>): ToolDefinition<I> {
  return Object.freeze(tool);
}

/**
 * A success result. `T` is the `Static` of the tool's output type, so the
 * compiler checks the keys of `structuredContent` against the schema the
 * tool publishes.
 */
export function success<T extends object>(structured: T, text: string): ToolSuccess {
  return { content: [{ type: 'text', text }], structuredContent: structured as Record<string, unknown> };
}

/** A failure result: text only. */
export function failure(text: string): ToolFailure {
  return { content: [{ type: 'text', text }], isError: true };
}

/** A value as JSON, the way the prose quotes agent ids and queries. */
export function quote(value: string): string {
  return JSON.stringify(value);
}
