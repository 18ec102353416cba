import { rootCause } from '../../errors.js';
import { docTerms } from '../../search/doc-terms.js';
import { type AgentStats, decodeCheckpoint, decodeFact, decodeStats, decodeSurface, decodeTermCount } from './codec.js';
import type { Sublevels } from './db.js';
import { KEY_SEP, isAgentId, splitDedupRest, splitKey } from './keys.js';
import { contentHash } from '../rules/dedupe-key.js';
import { describeRecord, unseal } from './record-seal.js';
import { decodeVector } from './vectors.js';
import type { SealedSublevel } from './sealed-sublevel.js';

/** What a full scan of the store found. */
export interface StoreFindings {
  /** Values read. */
  records: number;
  /** Agents with records or counters. */
  agents: number;
  /** One line a person can act on per problem: a damaged record, a counter that disagrees, an unreadable table. */
  problems: string[];
}

/** What the records of one agent add up to. */
interface Tally {
  facts: number;
  checkpoints: number;
  length: number;
}

/** Entries read per round trip. */
const CHUNK = 256;

/**
 * Reads every value of the store and checks it: its seal, that it decodes,
 * and that the counters and the dedup entries agree with the records
 * they describe. Reads LevelDB only; changes nothing.
 * An engine error (an unreadable table) ends the scan of that sublevel
 * and is a problem of its own.
 */
export async function verifyRecords(subs: Sublevels): Promise<StoreFindings> {
  const scan = new StoreScan();
  await scanRecords(scan, subs);
  await scanDerived(scan, subs);
  scan.problems.push(...unclaimedFacts(scan));
  const agents = new Set([...scan.tallies.keys(), ...scan.counters.keys()]);
  for (const agentId of agents) compareCounters(agentId, scan.tally(agentId), scan.counters.get(agentId), scan.problems);
  return { records: scan.records, agents: agents.size, problems: scan.problems };
}

/** What a scan has read so far: the records' sums, what the derived records must match, and the problems. */
class StoreScan {
  /** Values read. */
  records = 0;
  readonly problems: string[] = [];
  /** What each agent's records add up to. */
  readonly tallies = new Map<string, Tally>();
  /** The content hash of each current fact, by its key: what its dedup entry must hold. */
  readonly hashes = new Map<string, string>();
  /** The keys of the facts that a dedup entry lists. */
  readonly claimed = new Set<string>();
  /** Each agent's stored counters. */
  readonly counters = new Map<string, AgentStats>();

  /** The agent's tally, started at zero. */
  tally(agentId: string): Tally {
    let t = this.tallies.get(agentId);
    if (t === undefined) this.tallies.set(agentId, (t = { facts: 0, checkpoints: 0, length: 0 }));
    return t;
  }

  /** Hands each value of `sublevel` whose seal holds to `visit`; a damaged one, or one `visit` throws on, is a problem. */
  async each(sublevel: SealedSublevel, visit: (key: string, payload: string) => void): Promise<void> {
    const iterator = sublevel.raw.iterator({});
    try {
      for (let chunk = await iterator.nextv(CHUNK); chunk.length > 0; chunk = await iterator.nextv(CHUNK)) {
        for (const [key, stored] of chunk) this.#visit(sublevel, key, stored, visit);
      }
    } catch (err) {
      this.problems.push(`the ${sublevel.name} records cannot all be read: ${rootCause(err)}`);
    } finally {
      await iterator.close().catch(() => undefined);
    }
  }

  #visit(sublevel: SealedSublevel, key: string, stored: string, visit: (key: string, payload: string) => void): void {
    this.records++;
    const payload = unseal(sublevel.fullKey(key), stored);
    if (payload === undefined) {
      this.problems.push(`${describeRecord(sublevel.name, key)}: damaged (checksum mismatch)`);
      return;
    }
    try {
      visit(key, payload);
    } catch (err) {
      this.problems.push(`${describeRecord(sublevel.name, key)}: ${rootCause(err)}`);
    }
  }
}

/** The records themselves: the store's metadata, current and past facts, checkpoints, and the counters. */
async function scanRecords(scan: StoreScan, subs: Sublevels): Promise<void> {
  let layout = false;
  await scan.each(subs.meta, (key) => void (layout ||= key === 'layout'));
  if (!layout) scan.problems.push('store metadata "layout" is missing');
  await scan.each(subs.fact, (key, text) => {
    const { agentId, rest: id } = splitKey(key);
    const fact = decodeFact('value', text, id);
    const doc = docTerms(fact);
    const t = scan.tally(agentId);
    t.facts++;
    t.length += doc.length;
    scan.hashes.set(key, contentHash(fact.content));
  });
  await scan.each(subs.hist, (key, text) => void decodeFact('value', text, splitKey(key).rest));
  await scan.each(subs.ckpt, (key, text) => {
    const { agentId, rest: id } = splitKey(key);
    decodeCheckpoint('value', text, id);
    scan.tally(agentId).checkpoints++;
  });
  await scan.each(subs.stats, (agentId, text) => {
    if (!isAgentId(agentId)) throw new Error('malformed key');
    scan.counters.set(agentId, decodeStats('value', text));
  });
}

/** The records derived from the facts, after them: dedup entries, vectors, and the old search index's. */
async function scanDerived(scan: StoreScan, subs: Sublevels): Promise<void> {
  await scan.each(subs.dedup, (key) => {
    const { agentId, rest } = splitKey(key);
    const { hash, factId: id } = splitDedupRest(rest);
    const factKey = agentId + KEY_SEP + id;
    if (scan.hashes.get(factKey) !== hash) scan.problems.push(`dedup entry of agent ${agentId} lists fact ${id}, which is not a current fact holding its text`);
    scan.claimed.add(factKey);
  });
  // Meaning search's vectors: each decodes, and belongs to a current fact (the batch that retires a fact deletes its vector).
  await scan.each(subs.vec, (key, text) => {
    const { agentId, rest: id } = splitKey(key);
    decodeVector('value', text);
    if (!scan.hashes.has(agentId + KEY_SEP + id)) scan.problems.push(`vector of fact ${id} of agent ${agentId}: its fact is not current`);
  });
  // The LevelDB search index of earlier versions, until the next open clears it: only its seals are checked.
  await scan.each(subs.post, () => {});
  await scan.each(subs.term, (key, text) => void decodeTermCount('value', text));
  await scan.each(subs.surf, (key, text) => void decodeSurface('value', text));
}

/** A problem for each current fact that no dedup entry lists. */
function unclaimedFacts(scan: StoreScan): string[] {
  const problems: string[] = [];
  for (const key of scan.hashes.keys()) {
    if (scan.claimed.has(key)) continue;
    const { agentId, rest: id } = splitKey(key);
    problems.push(`fact ${id} of agent ${agentId} is missing from its dedup entry`);
  }
  return problems;
}

/** Adds a problem for each counter of the agent that disagrees with its records. */
function compareCounters(agentId: string, found: Tally, stored: AgentStats | undefined, problems: string[]): void {
  const claimed = stored ?? { facts: 0, checkpoints: 0, length: 0 };
  const pairs: Array<[string, number, number]> = [
    ['current facts', found.facts, claimed.facts],
    ['checkpoints', found.checkpoints, claimed.checkpoints],
    ['summed fact length', found.length, claimed.length],
  ];
  for (const [what, count, said] of pairs) {
    if (count !== said) problems.push(`agent ${agentId}: ${count} ${what} found, its counters say ${said}`);
  }
}
