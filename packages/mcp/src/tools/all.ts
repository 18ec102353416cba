import { checkpointResumeTool } from './checkpoint-resume.js';
import { checkpointSaveTool } from './checkpoint-save.js';
import { memoryAddTool } from './memory-add.js';
import { memoryReflectTool } from './memory-reflect.js';
import { memorySearchTool } from './memory-search.js';
import type { ToolDefinition } from './tool.js';

/** Every tool the shim serves, in the order `tools/list` gives them. */
export const Tools: readonly ToolDefinition[] = Object.freeze([
  memorySearchTool,
  memoryAddTool,
  checkpointSaveTool,
  checkpointResumeTool,
  memoryReflectTool,
] as ToolDefinition[]);
