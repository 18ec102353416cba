// The search bench's embedder (bench:search --embeddings): an
// OpenAI-compatible and Ollama-compatible server on 127.0.0.1 whose
// vectors are pseudo-random unit vectors of a hash of each text, of the
// dimensions asked (384 by default, a MiniLM- or bge-small-sized model).
// They carry no meaning: the bench measures what meaning search costs, not
// what it finds (bench:quality does that). Run as a child of its own so
// its work is not the timing client's; prints its URL on stderr (the
// bench's children have no stdout).
//   node embed-server.mjs DIMS
import { createHash } from 'node:crypto';
import http from 'node:http';

const dims = Number(process.argv[2] ?? 384);

/** A unit vector drawn from a PRNG seeded by the text's hash. @param {string} text */
function hashVector(text) {
  const seed = createHash('sha256').update(text).digest();
  let state = seed.readUInt32LE(0) | 1;
  const v = new Array(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    v[i] = (state >>> 0) / 4294967296 - 0.5;
    norm += v[i] * v[i];
  }
  norm = Math.sqrt(norm);
  return v.map((x) => Math.round((x / norm) * 1e6) / 1e6);
}

const server = http.createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    let input;
    try {
      input = [].concat(JSON.parse(body).input);
    } catch {
      res.writeHead(400).end('{"error":"bad request"}');
      return;
    }
    const vectors = input.map((t) => hashVector(String(t)));
    res.setHeader('content-type', 'application/json');
    if (req.url === '/api/embed') res.end(JSON.stringify({ embeddings: vectors }));
    else res.end(JSON.stringify({ object: 'list', data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })) }));
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
