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
  const problems: string[] = [];
  const tallies = new Map<string, Tally>();
  const tally = (agentId: string): Tally => {
    let t = tallies.get(agentId);
    if (t === undefined) tallies.set(agentId, (t = { facts: 0, checkpoints: 0, length: 0 }));
    return t;
  };
  const hashes = new Map<string, string>();
  const claimed = new Set<string>();
  const counters = new Map<string, AgentStats>();
  let records = 0;

  const scan = async (sublevel: SealedSublevel, visit: (key: string, payload: string) => void): Promise<void> => {
    const iterator = sublevel.raw.iterator({});
    try {
      for (let chunk = await iterator.nextv(CHUNK); chunk.length > 0; chunk = await iterator.nextv(CHUNK)) {
        for (const [key, stored] of chunk) {
          records++;
          const payload = unseal(sublevel.fullKey(key), stored);
          if (payload === undefined) problems.push(`${describeRecord(sublevel.name, key)}: damaged (checksum mismatch)`);
          else {
            try {
              visit(key, payload);
            } catch (err) {
              problems.push(`${describeRecord(sublevel.name, key)}: ${rootCause(err)}`);
            }
          }
        }
      }
    } catch (err) {
      problems.push(`the ${sublevel.name} records cannot all be read: ${rootCause(err)}`);
    } finally {
      await iterator.close().catch(() => undefined);
    }
  };

  let layout = false;
  await scan(subs.meta, (key) => void (layout ||= key === 'layout'));
  if (!layout) problems.push('store metadata "layout" is missing');
  await scan(subs.fact, (key, text) => {
    const { agentId, rest: id } = splitKey(key);
    const fact = decodeFact('value', text, id);
    const doc = docTerms(fact.content, fact.tags, fact.context);
    const t = tally(agentId);
    t.facts++;
    t.length += doc.length;
    hashes.set(key, contentHash(fact.content));
  });
  await scan(subs.hist, (key, text) => void decodeFact('value', text, splitKey(key).rest));
  await scan(subs.ckpt, (key, text) => {
    const { agentId, rest: id } = splitKey(key);
    decodeCheckpoint('value', text, id);
    tally(agentId).checkpoints++;
  });
  await scan(subs.stats, (agentId, text) => {
    if (!isAgentId(agentId)) throw new Error('malformed key');
    counters.set(agentId, decodeStats('value', text));
  });
  await scan(subs.dedup, (key) => {
    const { agentId, rest } = splitKey(key);
    const { hash, factId: id } = splitDedupRest(rest);
    const factKey = agentId + KEY_SEP + id;
    if (hashes.get(factKey) !== hash) problems.push(`dedup entry of agent ${agentId} lists fact ${id}, which is not a current fact holding its text`);
    claimed.add(factKey);
  });
  // Meaning search's vectors: each decodes, and belongs to a current fact (the batch that retires a fact deletes its vector).
  await scan(subs.vec, (key, text) => {
    const { agentId, rest: id } = splitKey(key);
    decodeVector('value', text);
    if (!hashes.has(agentId + KEY_SEP + id)) problems.push(`vector of fact ${id} of agent ${agentId}: its fact is not current`);
  });
  // The LevelDB search index of earlier versions, until the next open clears it: only its seals are checked.
  await scan(subs.post, () => {});
  await scan(subs.term, (key, text) => void decodeTermCount('value', text));
  await scan(subs.surf, (key, text) => void decodeSurface('value', text));

  for (const key of hashes.keys()) {
    if (!claimed.has(key)) {
      const { agentId, rest: id } = splitKey(key);
      problems.push(`fact ${id} of agent ${agentId} is missing from its dedup entry`);
    }
  }
  for (const agentId of new Set([...tallies.keys(), ...counters.keys()])) compareCounters(agentId, tally(agentId), counters.get(agentId), problems);
  return { records, agents: tallies.size, problems };
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
