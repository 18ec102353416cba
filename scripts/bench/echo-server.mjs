// The transport floor: a raw NDJSON server on a Unix socket that does only
// what any JSON-RPC server must (split lines, parse each, serialise an
// answer carrying the request's id) and nothing a daemon adds (validation,
// storage, search). Its answers have the shape and size of the daemon's, so
// the bytes on the wire match: a memory.add result by default, a fixed
// memory.search result of 10 facts (about what a search of the bench's
// corpora returns) to memory.search, and a daemon.hello result that
// @memoryd/client's DaemonClient accepts when PROTOCOL_VERSION is given.
//
// Usage: node echo-server.mjs SOCKET_PATH [PROTOCOL_VERSION]
// Prints "ready" on stdout once listening; exits 0 on SIGTERM or SIGINT.

import fs from 'node:fs';
import net from 'node:net';

const socketPath = process.argv[2];
if (socketPath === undefined) {
  process.stderr.write('usage: node echo-server.mjs SOCKET_PATH\n');
  process.exit(2);
}

// Same shape as memory.add's result: a 26-character ULID and an RFC 3339
// timestamp with milliseconds.
const RESULT = { factId: '01HZX3Q4M6V8B0C2D4E6F8G0H2', createdAt: '2025-01-01T00:00:00.000Z' };

const protocolVersion = Number(process.argv[3] ?? 1);
const startedAt = new Date().toISOString();
const HELLO = { daemonVersion: 'echo', protocolVersion, capabilities: [], pid: process.pid, startedAt };

/** Ten facts of a search answer: ids, 14 words of content, a score each. */
const SEARCH = {
  facts: Array.from({ length: 10 }, (_, i) => ({
    id: `01HZX3Q4M6V8B0C2D4E6F8G0${String(10 + i)}`,
    content: 'brailox quenda shoutrick plaiven drou stiamor klepax vouth grindle sabou trealim fouck zantheon pliv',
    tags: [],
    createdAt: '2025-01-01T00:00:00.000Z',
    score: 7.25 - i / 10,
  })),
};

/** @param {any} request */
function answer(request) {
  const method = request?.method;
  const result = method === 'daemon.hello' ? HELLO : method === 'memory.search' ? SEARCH : RESULT;
  return { jsonrpc: '2.0', id: request?.id ?? null, result };
}

const server = net.createServer((socket) => {
  socket.setEncoding('utf8');
  let buffer = '';
  socket.on('data', (chunk) => {
    buffer += chunk;
    let newline;
    let out = '';
    while ((newline = buffer.indexOf('\n')) !== -1) {
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
      const response = Array.isArray(message) ? message.map(answer) : answer(message);
      out += JSON.stringify(response) + '\n';
    }
    if (out !== '') socket.write(out);
  });
  socket.on('error', () => socket.destroy());
});

server.on('error', (err) => {
  process.stderr.write(`echo-server: ${err.message}\n`);
  process.exit(1);
});

server.listen(socketPath, () => process.stdout.write('ready\n'));

function stop() {
  server.close();
  try {
    fs.unlinkSync(socketPath);
  } catch {
    // Already gone: the parent may have removed the temp dir first.
  }
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
