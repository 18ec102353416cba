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

const insert = db.prepare('INSERT INTO facts (content, tags, agent_id, id, created_at) VALUES (?, ?, ?, ?, ?)');
const importAll = db.transaction((records) => {
  let imported = 0;
  for (const r of records) {
    // Current facts only: what memoryd indexes (a version with supersededBy or deletedAt is history).
    if (r.type !== 'fact' || r.supersededBy !== undefined || r.deletedAt !== undefined) continue;
    insert.run(r.content, (r.tags ?? []).join(' '), r.agentId, r.id, r.createdAt);
    imported++;
  }
  return imported;
});
// Tags weigh twice the content, as memoryd's TAG_WEIGHT.
const search = db.prepare(`SELECT id, content, tags, created_at AS createdAt, bm25(facts, 1.0, 2.0) AS score
  FROM facts WHERE facts MATCH ? AND agent_id = ? ORDER BY bm25(facts, 1.0, 2.0) LIMIT ?`);
const count = db.prepare('SELECT count(*) AS n FROM facts');

/** @param {{method: string, params?: any}} request */
function call({ method, params }) {
  switch (method) {
    case 'daemon.hello':
      return { daemonVersion: 'sqlite-fts5', protocolVersion: Number(protocolText), capabilities: [], pid: process.pid, startedAt };
    case 'admin.import':
      return { imported: importAll(params.records), skipped: 0, rejected: [] };
    case 'memory.search': {
      const expression = matchExpression(String(params.query));
      if (expression === undefined) return { facts: [] };
      const rows = search.all(expression, params.agentId, params.limit ?? 10);
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
