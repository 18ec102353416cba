import type { ExportRecord } from '@memoryd/protocol';
import { DaemonError, DaemonErrorCodes } from '../../errors.js';
import { type AgentStats, decodeStats } from './codec.js';
import { type Db, type Sublevels, guard } from './db.js';
import { statsKey } from './keys.js';
import type { ReadOptions } from './sealed-sublevel.js';

/*
 * A record whose key was damaged can vanish from a range read without any
 * error: LevelDB without block checksums may skip it, and the record's own
 * seal is never read. The counters are a second witness, written in the
 * same batch as the records they count: a read of an agent's whole range
 * that finds another number than they say fails (ADR 0016).
 */

/** An agent's counters as of `options.snapshot` (zero when it has none). */
export async function countersAt(subs: Sublevels, agentId: string, options: ReadOptions): Promise<AgentStats> {
  const text = await guard(`read counters of agent ${agentId}`, () => subs.stats.get(statsKey(agentId), options));
  return text === undefined ? { facts: 0, checkpoints: 0, length: 0 } : decodeStats(`counters of agent ${agentId}`, text);
}

/** The error for a whole-range read that found `found` records where the counters say `expected`. */
export function countMismatch(what: string, agentId: string, found: number, expected: number): DaemonError {
  return new DaemonError(
    DaemonErrorCodes.Damaged,
    `${what} of agent ${agentId}: ${found} read, but its counters say ${expected}; the store is damaged (memoryd --verify lists what)`,
  );
}

/** Throws {@link countMismatch} unless `found` is `expected`. */
export function expectCount(what: string, agentId: string, found: number, expected: number): void {
  if (found !== expected) throw countMismatch(what, agentId, found, expected);
}

/** What {@link readWhole} reads and how it checks it. */
export interface WholeRead {
  agentId: string;
  /** The read starts at the agent's first record (no `after`): only then can it be whole. */
  fromStart: boolean;
  /** Entries asked for: a read that returns fewer reached the end of the agent's range. */
  asked: number;
  /** What the entries are, for the error. */
  what: string;
  /** The counter the entries must match. */
  count(stats: AgentStats): number;
}

/**
 * Runs a range read of one agent's records. A read from the start runs on
 * a snapshot, and if it returns fewer entries than it asked for (so the
 * agent's whole range), their number must be the counter's in that
 * snapshot. Returns the entries read.
 */
export async function readWhole<E>(ctx: { db: Db; subs: Sublevels }, check: WholeRead, read: (options: ReadOptions) => Promise<E[]>): Promise<E[]> {
  if (!check.fromStart) return read({});
  const snapshot = ctx.db.snapshot();
  try {
    const entries = await read({ snapshot });
    if (entries.length < check.asked) {
      const expected = check.count(await countersAt(ctx.subs, check.agentId, { snapshot }));
      expectCount(check.what, check.agentId, entries.length, expected);
    }
    return entries;
  } finally {
    await guard('close a snapshot', () => snapshot.close());
  }
}

/** Records an export returned for one agent. */
interface Tally {
  agentId: string;
  facts: number;
  checkpoints: number;
}

/**
 * Counts what an export returns, agent by agent, and checks each agent
 * against its counters in the export's snapshot once the export has
 * moved past it; at the end, agents the export never met are checked
 * too (all their records gone would otherwise go unseen). A page read
 * again (a retried cursor) is counted once: only records past the
 * furthest one counted are.
 */
export class ExportTally {
  #current: Tally | undefined;
  #furthest: string | undefined;
  readonly #checked = new Set<string>();
  #queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly subs: Sublevels,
    private readonly snapshot: unknown,
    private readonly agentFilter: string | undefined,
  ) {}

  /** Counts a page's records (in export order); checks agents it moved past. One page at a time. */
  add(records: readonly ExportRecord[]): Promise<void> {
    return this.#serial(() => this.#add(records));
  }

  /** The export ended: checks the last agent and every agent it never met. */
  end(): Promise<void> {
    return this.#serial(() => this.#end());
  }

  /** Runs steps one after another: two pages read at once (a retried cursor) must not interleave their counting. */
  #serial(step: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(step);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #add(records: readonly ExportRecord[]): Promise<void> {
    for (const r of records) {
      const at = position(r);
      if (this.#furthest !== undefined && at <= this.#furthest) continue;
      this.#furthest = at;
      if (this.#current?.agentId !== r.agentId) {
        await this.#check();
        this.#current = { agentId: r.agentId, facts: 0, checkpoints: 0 };
      }
      if (r.type === 'checkpoint') this.#current.checkpoints++;
      else if (r.supersededBy === undefined && r.deletedAt === undefined) this.#current.facts++;
    }
  }

  async #end(): Promise<void> {
    await this.#check();
    const options = { snapshot: this.snapshot };
    const agents =
      this.agentFilter === undefined
        ? (await guard('read agent counters', () => this.subs.stats.iterator(options).all())).map(([agentId]) => agentId)
        : [this.agentFilter];
    for (const agentId of agents) {
      if (!this.#checked.has(agentId)) await this.#compare({ agentId, facts: 0, checkpoints: 0 });
    }
  }

  async #check(): Promise<void> {
    const tally = this.#current;
    this.#current = undefined;
    if (tally !== undefined) await this.#compare(tally);
  }

  async #compare(tally: Tally): Promise<void> {
    this.#checked.add(tally.agentId);
    const expected = await countersAt(this.subs, tally.agentId, { snapshot: this.snapshot });
    expectCount('current facts exported', tally.agentId, tally.facts, expected.facts);
    expectCount('checkpoints exported', tally.agentId, tally.checkpoints, expected.checkpoints);
  }
}

/** A record's place in export order, as a string that sorts the same way. */
function position(r: ExportRecord): string {
  return `${r.agentId}\x00${r.type === 'fact' ? '0' : '1'}${r.id}`;
}
