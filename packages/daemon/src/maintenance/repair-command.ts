import type { Logger } from '../logger.js';
import type { AgentStats } from '../store/level/codec.js';
import { repairStore } from '../store/level/repair.js';
import type { Print } from './verify-command.js';

function describe(stats: AgentStats | undefined): string {
  return stats === undefined ? 'nothing' : `${stats.facts} facts, ${stats.checkpoints} checkpoints`;
}

/**
 * `memoryd --repair`: repairs the store copy first (store/level/repair.ts) and
 * prints what it did: where the copy is, what LevelDB set aside, each
 * record removed, and every agent whose counts changed. Returns 0.
 */
export async function runRepair(dataDir: string, logger: Logger, print: Print): Promise<number> {
  print(`repairing the store in ${dataDir}`);
  const report = await repairStore(dataDir, logger);
  print(`the store as it was is copied to ${report.backup}`);
  if (report.engineRepair !== undefined) print(`LevelDB's repair ran: ${report.engineRepair}`);
  const tables = report.lost.filter((name) => /\.(ldb|sst)$/.test(name));
  for (const name of tables) print(`damaged table ${name}: LevelDB's repair kept what it could read of it; the original is in store/lost/`);
  if (report.lost.length > tables.length) print(`LevelDB's repair rebuilt the store from its logs and tables; the files it replaced are in store/lost/`);
  if (report.salvaged > 0) print(`written back: ${report.salvaged} write batches that LevelDB's repair drops from a damaged log (intact, but after the damage in its 32 KiB block)`);
  for (const record of report.removed) print(`removed: ${record}`);
  let facts = 0;
  let checkpoints = 0;
  for (const { agentId, before, after } of report.counts) {
    facts += after?.facts ?? 0;
    checkpoints += after?.checkpoints ?? 0;
    if (before?.facts !== after?.facts || before?.checkpoints !== after?.checkpoints) {
      print(`agent ${agentId}: the counters said ${describe(before)}; the records hold ${describe(after)}`);
    }
  }
  const agents = report.counts.filter((c) => c.after !== undefined).length;
  print(
    `repaired: ${facts} current facts and ${checkpoints} checkpoints of ${agents} agents kept, ${report.removed.length} damaged records removed; ` +
      `delete ${report.backup} once you are satisfied`,
  );
  return 0;
}
