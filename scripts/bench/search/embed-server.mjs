// The benches' embedder (bench:search --embeddings, bench:embeddings): an
// OpenAI-compatible and Ollama-compatible server on 127.0.0.1 whose
// vectors are pseudo-random unit vectors of a hash of each text
// (@memoryd/test-support's hashVector), of the dimensions asked (384 by
// default, a MiniLM- or bge-small-sized model), as numbers or, when asked
// (`encoding_format: "base64"`, as OpenAI's API takes), as base64. They carry no meaning: the
// benches measure what meaning search costs, not what it finds
// (bench:quality does that). Run as a child of its own so its work is not
// the timing client's; prints its URL on stderr (the benches' children
// have no stdout).
//   node embed-server.mjs DIMS
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { hashVector } from '@memoryd/test-support';
import { startNode } from '../children.mjs';

const HERE = fileURLToPath(import.meta.url);

/**
 * Starts this server as a child of the bench (children.mjs: stopped with
 * the bench) and reads its URL from its first stderr line.
 * @param {number} dims
 */
export async function startEmbedServer(dims) {
  const child = startNode('embed server', [HERE, String(dims)], process.env);
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.proc.stderr?.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.split('\n')[0].trim());
    });
    child.exited.then(() => reject(new Error('the embed server exited before it listened')));
  });
  return { child, url };
}

/** Serves vectors of `dims` dimensions until SIGTERM. @param {number} dims */
function serve(dims) {
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      let input;
      let base64 = false;
      try {
        const request = JSON.parse(body);
        input = [].concat(request.input);
        base64 = request.encoding_format === 'base64';
      } catch {
        res.writeHead(400).end('{"error":"bad request"}');
        return;
      }
      const vectors = input.map((t) => hashVector(String(t), dims).map((x) => Math.round(x * 1e6) / 1e6));
      res.setHeader('content-type', 'application/json');
      if (req.url === '/api/embed') res.end(JSON.stringify({ embeddings: vectors }));
      else {
        // As OpenAI's API does: little-endian float32s in base64 when asked, numbers otherwise.
        const encode = (v) => (base64 ? Buffer.from(Float32Array.from(v).buffer).toString('base64') : v);
        res.end(JSON.stringify({ object: 'list', data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: encode(v) })) }));
      }
    });
  });
  server.listen(0, '127.0.0.1', () => {
    process.stderr.write(`http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

if (process.argv[1] === HERE) serve(Number(process.argv[2] ?? 384));
