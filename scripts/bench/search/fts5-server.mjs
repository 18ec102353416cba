// The peer bench:search measures memoryd beside: an SQLite FTS5 index, as
// a user who wants full-text search over their agents' notes would build
// it (better-sqlite3, the porter stemmer over unicode61, the query's words
// ORed, ranked by FTS5's bm25), served over memoryd's own transport: NDJSON
// JSON-RPC on a Unix socket, one process, requests answered in order. It
// speaks the few methods the bench sends (daemon.hello, admin.import,
// memory.search, daemon.status, daemon.shutdown) with memoryd's shapes, so
// the bench's client and the bytes on the wire are the same for both.
//
// Durable as memoryd is by default: WAL with synchronous=FULL, so an
// answered admin.import is on disk; each call is one transaction.
//
// Usage: node fts5-server.mjs SOCKET_PATH DB_PATH PROTOCOL_VERSION
// Exits 0 after daemon.shutdown, SIGTERM or SIGINT.

import fs from 'node:fs';
import net from 'node:net';
import Database from 'better-sqlite3';
import { matchExpression } from './fts5-query.mjs';

const [socketPath, dbPath, protocolText] = process.argv.slice(2);
if (socketPath === undefined || dbPath === undefined || protocolText === undefined) {
  process.stderr.write('usage: node fts5-server.mjs SOCKET_PATH DB_PATH PROTOCOL_VERSION\n');
  process.exit(2);
}
const startedAt = new Date().toISOString();

const db = new Database(dbPath);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS facts USING fts5(
  content, tags, agent_id UNINDEXED, id UNINDEXED, created_at UNINDEXED,
  tokenize = 'porter unicode61'
)`);

// Tags a filter matches, as a user of FTS5 keeps them: a table of (fact, tag), the tag lower-cased, indexed.
db.exec(`CREATE TABLE IF NOT EXISTS fact_tags (fact_rowid INTEGER NOT NULL, tag TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS fact_tags_by_tag ON fact_tags (tag, fact_rowid)`);

const insert = db.prepare('INSERT INTO facts (content, tags, agent_id, id, created_at) VALUES (?, ?, ?, ?, ?)');
const insertTag = db.prepare('INSERT INTO fact_tags (fact_rowid, tag) VALUES (?, ?)');
const importAll = db.transaction((records) => {
  let imported = 0;
  for (const r of records) {
    // Current facts only: what memoryd indexes (a version with supersededBy or deletedAt is history).
    if (r.type !== 'fact' || r.supersededBy !== undefined || r.deletedAt !== undefined) continue;
    const { lastInsertRowid } = insert.run(r.content, (r.tags ?? []).join(' '), r.agentId, r.id, r.createdAt);
    for (const tag of new Set((r.tags ?? []).map((t) => t.toLowerCase()))) insertTag.run(lastInsertRowid, tag);
    imported++;
  }
  return imported;
});
// Tags weigh twice the content, as memoryd's TAG_WEIGHT.
/** Statements by the filters they apply (how many tags, which times). @type {Map<string, import('better-sqlite3').Statement>} */
const searches = new Map();

/**
 * A search's statement, with filters as a user of FTS5 writes them: a
 * WHERE on the times (created_at, ISO text), and a +rowid IN (SELECT …)
 * on the tag table per tag.
 * @param {number} tagCount @param {boolean} since @param {boolean} until
 */
function searchStatement(tagCount, since, until) {
  const key = `${tagCount}:${since}:${until}`;
  let statement = searches.get(key);
  if (statement === undefined) {
    const where = [
      ...(since ? ['created_at >= ?'] : []),
      ...(until ? ['created_at < ?'] : []),
      // +rowid: the match is run once and its rows checked against the tag table; a bare rowid IN (…) is
      // handed to FTS5 as a constraint, which then runs the match once per tagged row (16 s a search at 100k).
      ...Array.from({ length: tagCount }, () => '+rowid IN (SELECT fact_rowid FROM fact_tags WHERE tag = ?)'),
    ];
    statement = db.prepare(`SELECT id, content, tags, created_at AS createdAt, bm25(facts, 1.0, 2.0) AS score
      FROM facts WHERE facts MATCH ? AND agent_id = ?${where.map((w) => ` AND ${w}`).join('')} ORDER BY bm25(facts, 1.0, 2.0) LIMIT ?`);
    searches.set(key, statement);
  }
  return statement;
}
const count = db.prepare('SELECT count(*) AS n FROM facts');

/** An RFC 3339 time as the stored created_at texts are written (UTC, milliseconds), so that they compare as text. @param {string} t */
function toIso(t) {
  return new Date(t).toISOString();
}

/** @param {{method: string, params?: any}} request */
function call({ method, params }) {
  switch (method) {
    case 'daemon.hello':
      return { daemonVersion: 'sqlite-fts5', protocolVersion: Number(protocolText), capabilities: ['filters'], pid: process.pid, startedAt };
    case 'admin.import':
      return { imported: importAll(params.records), skipped: 0, rejected: [] };
    case 'memory.search': {
      const expression = matchExpression(String(params.query));
      if (expression === undefined) return { facts: [] };
      const tags = [...new Set((params.tags ?? []).map((t) => String(t).toLowerCase()))];
      const statement = searchStatement(tags.length, params.since !== undefined, params.until !== undefined);
      const times = [...(params.since !== undefined ? [toIso(params.since)] : []), ...(params.until !== undefined ? [toIso(params.until)] : [])];
      const rows = statement.all(expression, params.agentId, ...times, ...tags, params.limit ?? 10);
      return {
        facts: rows.map((r) => ({
          id: r.id, content: r.content, tags: r.tags === '' ? [] : r.tags.split(' '), createdAt: r.createdAt, score: -r.score,
        })),
      };
    }
    case 'daemon.status':
      return { facts: count.get().n };
    case 'daemon.shutdown':
      setImmediate(stop);
      return {};
    default:
      throw Object.assign(new Error(`method not found: ${method}`), { code: -32601 });
  }
}

/** @param {any} request */
function answer(request) {
  try {
    return { jsonrpc: '2.0', id: request.id, result: call(request) };
  } catch (err) {
    return { jsonrpc: '2.0', id: request?.id ?? null, error: { code: err.code ?? -32603, message: String(err.message) } };
  }
}

const server = net.createServer((socket) => {
  socket.setEncoding('utf8');
  let buffer = '';
  socket.on('data', (chunk) => {
    buffer += chunk;
    let out = '';
    for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.trim() === '') continue;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        out += JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }) + '\n';
        continue;
      }
      out += JSON.stringify(Array.isArray(message) ? message.map(answer) : answer(message)) + '\n';
    }
    if (out !== '') socket.write(out);
  });
  socket.on('error', () => socket.destroy());
});

server.on('error', (err) => {
  process.stderr.write(`fts5-server: ${err.message}\n`);
  process.exit(1);
});
server.listen(socketPath);

function stop() {
  server.close();
  db.close();
  try {
    fs.unlinkSync(socketPath);
  } catch {
    // Already gone: the bench may have removed its temp dir first.
  }
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
