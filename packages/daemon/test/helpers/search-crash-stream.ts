// The write stream of search-crash.test.ts: several connections, each
// writing for one agent with a few requests in flight, mixing memory.add,
// memory.reflect update and memory.reflect delete on facts that writer
// owns (so no two requests ever race on one fact and every error is a
// bug). Each request marks what it touches `either` before it is sent and
// the acknowledgement settles it, so whatever the kill leaves unanswered
// stays `either`. The kill comes from inside the stream, right after the
// Nth acknowledgement, while the other requests are still in flight.
import { MemoryAdd, MemoryReflect, type ResultOf } from '@memoryd/protocol';
import { connect, type RpcClient } from './rpc.js';
import { prng } from '@memoryd/test-support';
import type { CrashModel, Version } from './search-crash-model.js';

/** Options of {@link streamUntilKill}. */
export interface StreamOptions {
  socket: string;
  /** One writer (one connection) per entry: the agent it writes for. */
  writers: string[];
  /** Requests each writer keeps in flight. */
  slots: number;
  /** Acknowledgements after which `kill` is called. */
  killAfter: number;
  /** Seeds the writers' op mix. */
  seed: number;
  /** Kills the daemon; called once, synchronously from the Nth acknowledgement. */
  kill: () => void;
}

/** What a stream did. */
export interface StreamReport {
  acked: { add: number; update: number; delete: number };
  /** Requests sent and not answered when `kill` was called. */
  inFlightAtKill: number;
  /** Requests that never got an answer (the kill cut them off). */
  unanswered: number;
}

/**
 * Runs writers until the `killAfter`th acknowledgement, kills the daemon
 * there and resolves once every writer has seen its connection close. A
 * writer starts from the agent's current versions in `model` (split among
 * the agent's writers), so later rounds update and delete facts an earlier
 * daemon wrote. Rejects on any error response.
 */
export async function streamUntilKill(model: CrashModel, opts: StreamOptions): Promise<StreamReport> {
  const report: StreamReport = { acked: { add: 0, update: 0, delete: 0 }, inFlightAtKill: 0, unanswered: 0 };
  let acks = 0;
  let sent = 0;
  let settled = 0;
  let killed = false;
  const clients: RpcClient[] = [];
  for (let i = 0; i < opts.writers.length; i++) clients.push(await connect(opts.socket));

  const ack = (kind: keyof StreamReport['acked']): void => {
    report.acked[kind]++;
    if (++acks === opts.killAfter) {
      killed = true;
      report.inFlightAtKill = sent - settled;
      opts.kill();
    }
  };

  const writer = async (w: number): Promise<void> => {
    const agentId = opts.writers[w]!;
    const c = clients[w]!;
    const rand = prng(opts.seed * 1000 + w);
    const mine = opts.writers.map((a, i) => (a === agentId ? i : -1)).filter((i) => i >= 0);
    // Facts this writer may update or delete: current, with no request in
    // flight. The agent's current facts from earlier rounds are dealt out
    // among its writers, so each fact has one owner.
    const idle: Version[] = model.versions.filter(
      (v, i) => v.agentId === agentId && v.fate === 'current' && mine[i % mine.length] === w,
    );

    const one = async (): Promise<void> => {
      while (!killed) {
        const r = rand();
        const old = idle.length >= 4 && r >= 0.5 ? idle.splice(Math.floor(rand() * idle.length), 1)[0]! : undefined;
        const action = old === undefined ? 'add' : r < 0.8 ? 'update' : 'delete';
        const next = action === 'delete' ? undefined : model.newVersion(agentId, rand, action === 'add' && rand() < 0.4);
        if (old) old.fate = 'either';
        if (old && next) next.replaces = old;
        const params =
          action === 'add'
            ? { agentId, content: next!.content, ...(next!.tags ? { tags: next!.tags } : {}) }
            : { agentId, action, factId: old!.factId, ...(next ? { content: next.content } : {}) };
        sent++;
        let res;
        try {
          res = await c.call(action === 'add' ? MemoryAdd.method : MemoryReflect.method, params);
        } catch (err) {
          if (!killed) throw err;
          report.unanswered++;
          return; // Cut off by the kill: what it touched stays `either`.
        } finally {
          settled++;
        }
        if (res.error !== undefined) throw new Error(`${action} failed: ${JSON.stringify(res.error)} for ${JSON.stringify(params)}`);
        if (action === 'add') {
          const out = res.result as ResultOf<typeof MemoryAdd>;
          if (out.duplicate) throw new Error(`add of a fresh text reported a duplicate: ${JSON.stringify(params)}`);
          Object.assign(next!, { factId: out.factId, fate: 'current' });
        } else {
          const out = res.result as ResultOf<typeof MemoryReflect>;
          if (out.factId !== old!.factId) throw new Error(`reflect answered for ${out.factId}, not ${old!.factId}`);
          old!.fate = 'removed';
          if (next) {
            if (out.supersededBy === undefined) throw new Error(`update without supersededBy: ${JSON.stringify(out)}`);
            Object.assign(next, { factId: out.supersededBy, fate: 'current', replaces: undefined });
          }
        }
        if (next) idle.push(next);
        ack(action);
      }
    };
    await Promise.all(Array.from({ length: opts.slots }, one));
  };

  try {
    await Promise.all(opts.writers.map((_, w) => writer(w)));
  } finally {
    for (const c of clients) c.socket.destroy();
  }
  if (!killed) throw new Error('the stream ended before the kill');
  return report;
}
