import type { DaemonClient } from '@memoryd/client';
import { AgentList } from '@memoryd/protocol';
import { didYouMean } from './suggest.js';

/**
 * `agent "Ann" has no facts; did you mean "ann"?` when `agentId` holds no
 * current fact, naming the agent with facts whose id is the nearest
 * spelling (agentIds are case-sensitive: a typo reads as an empty agent);
 * undefined when the agent has facts. Asked only after an empty answer,
 * so a search that finds something costs no second call.
 */
export async function noFactsSentence(client: DaemonClient, agentId: string): Promise<string | undefined> {
  const { agents } = await client.call(AgentList, {});
  const holding = agents.filter((a) => a.facts > 0).map((a) => a.agentId);
  if (holding.includes(agentId)) return undefined;
  return `agent ${JSON.stringify(agentId)} has no facts${didYouMean(agentId, holding)}`;
}
