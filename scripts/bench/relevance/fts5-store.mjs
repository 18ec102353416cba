// The SQLite FTS5 baseline of `npm run bench:quality`, in process: the
// same index and query as the search bench's peer
// (scripts/bench/search/fts5-server.mjs): porter unicode61, content and
// tags (weight 2), the query's words ORed, each quoted, ranked by bm25.
// It answers addFact and searchFacts as a MemoryStore does, so the
// relevance sets score it exactly as they score memoryd.

import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { matchExpression } from '../search/fts5-query.mjs';

/** A fresh in-memory FTS5 store. */
export function openFts5Store() {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE facts USING fts5(content, tags, agent_id UNINDEXED, id UNINDEXED, tokenize = 'porter unicode61')`);
  const insert = db.prepare('INSERT INTO facts (content, tags, agent_id, id) VALUES (?, ?, ?, ?)');
  const search = db.prepare(`SELECT id, content, bm25(facts, 1.0, 2.0) AS score FROM facts
    WHERE facts MATCH ? AND agent_id = ? ORDER BY bm25(facts, 1.0, 2.0) LIMIT ?`);
  return {
    async addFact({ agentId, content, tags }) {
      const factId = randomUUID();
      insert.run(content, (tags ?? []).join(' '), agentId, factId);
      return { factId };
    },
    async searchFacts({ agentId, query, limit }) {
      const match = matchExpression(query);
      if (match === undefined) return { facts: [] };
      return { facts: search.all(match, agentId, limit).map((r) => ({ id: r.id, content: r.content, score: -r.score })) };
    },
    async close() {
      db.close();
    },
  };
}
