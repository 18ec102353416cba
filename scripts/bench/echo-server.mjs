// The transport floor: a raw NDJSON server on a Unix socket that does only
// what any JSON-RPC server must (split lines, parse each, serialise an
// answer carrying the request's id) and nothing a daemon adds (validation,
// storage). Its answer has the shape and size of a memory.add result, so
// the bytes on the wire match what the daemon sends.
//
// Usage: node echo-server.mjs SOCKET_PATH
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

/** @param {any} request */
function answer(request) {
  return { jsonrpc: '2.0', id: request?.id ?? null, result: RESULT };
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
