import { Type } from '@sinclair/typebox';
import { defineMethod } from '../method.js';
import { AgentSummary } from '../schemas/records.js';

/** Lists agents with at least one current fact or checkpoint. */
export const AgentList = defineMethod(
  'agent.list',
  Type.Object({}),
  Type.Object({ agents: Type.Array(AgentSummary) }),
  'Agents with at least one current fact or checkpoint, with their counts.',
);
