// The local embedder end to end, with no Hugging Face: a hub on 127.0.0.1
// serves a tiny model made by the test (helpers/tiny-onnx.ts) under the
// hub's layout, and the test checks what the model cache fetches, verifies,
// refuses and keeps, then runs the model through the real onnxruntime-node
// and @huggingface/tokenizers (the root's devDependencies).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cleanupAll, tempDir, trackCloser, trackPid, withTimeout } from '@memoryd/test-support';
import { EmbedderError } from '../dist/embed/embedder.js';
import { ONNXRUNTIME_NODE_VERSION, TOKENIZERS_VERSION, createLocalEmbedder, runtimeInstallHint } from '../dist/embed/local/local-embedder.js';
import { DEFAULT_LOCAL_MODEL, LOCAL_MODELS, type LocalModelSpec, findLocalModel, invalidModelSpec, modelFileUrl, modelHub } from '../dist/embed/local/local-models.js';
import { type FetchProgress, ModelCacheError, cachedFilePath, ensureModel, formatFetchProgress, modelCacheDir } from '../dist/embed/local/model-cache.js';
import { TINY_DIMENSIONS, TINY_PATHS, sha256Hex, tinyModelFiles, tinyModelSpec } from './helpers/tiny-onnx.js';

after(cleanupAll);

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FILES = tinyModelFiles();
const SPEC = tinyModelSpec(FILES);

/** What a hub does with one request: serve the file (default), or something else. */
type Behaviour = (req: IncomingMessage, res: ServerResponse, body: Uint8Array, nth: number) => 'serve' | 'handled';

interface Hub {
  readonly url: string;
  /** Requests per repository path. */
  readonly counts: Map<string, number>;
  total(): number;
}

/**
 * A hub on 127.0.0.1 serving `files` at `/<repo>/resolve/<revision>/<path>`,
 * each body in two writes with its Content-Length; `behave` may answer
 * otherwise (per path and per request number, from 1).
 */
async function startHub(spec: LocalModelSpec, files: Map<string, Uint8Array>, behave?: (path: string) => Behaviour | undefined): Promise<Hub> {
  const prefix = `/${spec.repo}/resolve/${spec.revision}/`;
  const counts = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = req.url?.startsWith(prefix) === true ? decodeURIComponent(req.url.slice(prefix.length)) : '';
    const body = files.get(path);
    const nth = (counts.get(path) ?? 0) + 1;
    counts.set(path, nth);
    if (body === undefined) {
      res.writeHead(404).end('not found');
      return;
    }
    if (behave?.(path)?.(req, res, body, nth) === 'handled') return;
    serve(res, body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  trackCloser(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, counts, total: () => [...counts.values()].reduce((a, b) => a + b, 0) };
}

function serve(res: ServerResponse, body: Uint8Array): void {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.byteLength });
  const half = Math.floor(body.byteLength / 2);
  res.write(body.subarray(0, half));
  res.end(body.subarray(half));
}

/** Every file under `dir`, relative, sorted ([] when there is no dir). */
function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => join(d.parentPath ?? d.path, d.name).slice(dir.length + 1))
      .sort();
  } catch {
    return [];
  }
}

const EXPECTED_FILES = [TINY_PATHS.model, TINY_PATHS.tokenizer, TINY_PATHS.tokenizerConfig].sort();

async function rejectsWith(promise: Promise<unknown>, check: (err: Error & { code?: string; retryable?: boolean; cause?: unknown }) => void): Promise<void> {
  await assert.rejects(promise, (err: Error & { code?: string; retryable?: boolean }) => {
    check(err);
    return true;
  });
}

describe('model cache', () => {
  it('fetches each file once, verified, into models/<model>/<revision>/, with progress; a second use fetches nothing', async () => {
    const hub = await startHub(SPEC, FILES);
    const dataDir = tempDir('mel-');
    const progress: FetchProgress[] = [];
    const first = await ensureModel(SPEC, { dataDir, hub: hub.url, onProgress: (p) => progress.push(p) });
    assert.equal(first.dir, join(dataDir, 'models', SPEC.name, SPEC.revision));
    assert.equal(first.dir, modelCacheDir(dataDir, SPEC));
    assert.deepEqual([...first.fetched].sort(), EXPECTED_FILES);
    assert.deepEqual(filesUnder(first.dir), EXPECTED_FILES, 'the files and no temp file');
    for (const [path, bytes] of FILES) assert.deepEqual(readFileSync(join(first.dir, path)), Buffer.from(bytes), path);
    assert.equal(hub.total(), 3);

    const model = progress.filter((p) => p.file === TINY_PATHS.model);
    const size = FILES.get(TINY_PATHS.model)?.byteLength;
    assert.ok(model.length >= 2, 'a start and at least one step');
    assert.deepEqual(model[0], { model: SPEC.name, file: TINY_PATHS.model, done: 0, total: size });
    assert.deepEqual(model.at(-1), { model: SPEC.name, file: TINY_PATHS.model, done: size, total: size });
    assert.match(formatFetchProgress({ model: 'm', file: 'f', done: 17_000_000, total: 34_000_000 }), /^fetching m f: 17\.0 of 34\.0 MB \(50%\)$/);

    const second = await ensureModel(SPEC, { dataDir, hub: hub.url, onProgress: (p) => progress.push(p) });
    assert.deepEqual(second.fetched, []);
    assert.equal(hub.total(), 3, 'nothing fetched again');
  });

  it('shares one fetch between concurrent callers in a process', async () => {
    const hub = await startHub(SPEC, FILES);
    const dataDir = tempDir('mel-');
    const [a, b] = await Promise.all([ensureModel(SPEC, { dataDir, hub: hub.url }), ensureModel(SPEC, { dataDir, hub: hub.url })]);
    assert.equal(a, b);
    assert.equal(hub.total(), 3);
  });

  it('two processes fetching one model both end with good files', async () => {
    // The model file is held until both processes have asked for it, so
    // both are downloading it at once; then each renames its own copy.
    const waiting: (() => void)[] = [];
    const barrier: Behaviour = (_req, res, body) => {
      waiting.push(() => serve(res, body));
      if (waiting.length === 2) for (const go of waiting) go();
      return 'handled';
    };
    const hub = await startHub(SPEC, FILES, (path) => (path === TINY_PATHS.model ? barrier : undefined));
    const dataDir = tempDir('mel-');
    const moduleUrl = new URL('../dist/embed/local/model-cache.js', import.meta.url).href;
    const script = `const { ensureModel } = await import(${JSON.stringify(moduleUrl)});
      const r = await ensureModel(JSON.parse(process.env.SPEC), { dataDir: process.env.DATA_DIR, hub: process.env.HUB, stallTimeoutMs: 20000 });
      process.stdout.write(JSON.stringify(r.fetched));`;
    const run = (): Promise<{ code: number | null; out: string; err: string }> =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
          env: { ...process.env, SPEC: JSON.stringify(SPEC), DATA_DIR: dataDir, HUB: hub.url },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        trackPid(child.pid ?? 0);
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('close', (code) => resolve({ code, out, err }));
      });
    const results = await Promise.all([run(), run()]);
    for (const r of results) {
      assert.equal(r.code, 0, r.err);
      assert.ok((JSON.parse(r.out) as string[]).includes(TINY_PATHS.model), r.out);
    }
    assert.equal(hub.counts.get(TINY_PATHS.model), 2);
    const dir = modelCacheDir(dataDir, SPEC);
    assert.deepEqual(filesUnder(dir), EXPECTED_FILES, 'the files and no temp file');
    for (const [path, bytes] of FILES) assert.equal(sha256Hex(readFileSync(join(dir, path))), sha256Hex(bytes), path);
  });

  it('refuses a file whose SHA-256 is not the pin, naming the file and both digests, and keeps nothing of it', async () => {
    const good = FILES.get(TINY_PATHS.model) ?? new Uint8Array();
    const bad = Uint8Array.from(good);
    bad[bad.length - 3] = (bad[bad.length - 3] ?? 0) ^ 0xff;
    const hub = await startHub(SPEC, new Map([...FILES, [TINY_PATHS.model, bad]]));
    const dataDir = tempDir('mel-');
    await rejectsWith(ensureModel(SPEC, { dataDir, hub: hub.url }), (err) => {
      assert.ok(err instanceof ModelCacheError);
      assert.equal(err.code, 'MODEL_CHECKSUM_MISMATCH');
      assert.equal(err.retryable, false);
      assert.ok(!err.message.includes('\n'), 'one line');
      assert.ok(err.message.includes(TINY_PATHS.model), err.message);
      assert.ok(err.message.includes(SPEC.files.model.sha256), err.message);
      assert.ok(err.message.includes(sha256Hex(bad)), err.message);
    });
    assert.equal(hub.counts.get(TINY_PATHS.model), 1, 'a wrong file is not fetched again and again');
    const left = filesUnder(modelCacheDir(dataDir, SPEC));
    assert.ok(!left.some((f) => f.startsWith('onnx/')), `nothing of the model file: ${left.join(' ')}`);
  });

  it('fetches a damaged cached file again, once, with a warning', async () => {
    const hub = await startHub(SPEC, FILES);
    const dataDir = tempDir('mel-');
    const { dir } = await ensureModel(SPEC, { dataDir, hub: hub.url });
    const path = cachedFilePath(dir, SPEC.files.tokenizer);
    const damaged = readFileSync(path);
    damaged[10] = (damaged[10] ?? 0) ^ 0x01;
    writeFileSync(path, damaged);
    const warnings: string[] = [];
    const again = await ensureModel(SPEC, { dataDir, hub: hub.url, onWarning: (w) => warnings.push(w) });
    assert.deepEqual(again.fetched, [TINY_PATHS.tokenizer]);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /tokenizer\.json is damaged/);
    assert.equal(hub.counts.get(TINY_PATHS.tokenizer), 2);
    assert.equal(sha256Hex(readFileSync(path)), SPEC.files.tokenizer.sha256);
  });

  for (const when of ['before the headers', 'in the body'] as const) {
    it(`fails a hub that stalls ${when} after the stall timeout, leaving no temp file`, async () => {
      const stall: Behaviour = (_req, res, body) => {
        if (when === 'in the body') {
          res.writeHead(200, { 'content-length': body.byteLength });
          res.write(body.subarray(0, 10));
        }
        return 'handled'; // and never another byte
      };
      const hub = await startHub(SPEC, FILES, (path) => (path === TINY_PATHS.tokenizer ? stall : undefined));
      const dataDir = tempDir('mel-');
      const started = Date.now();
      await rejectsWith(ensureModel(SPEC, { dataDir, hub: hub.url, stallTimeoutMs: 300, retryDelayMs: 10 }), (err) => {
        assert.ok(err instanceof ModelCacheError);
        assert.equal(err.code, 'MODEL_FETCH_STALLED');
        assert.equal(err.retryable, true);
        assert.ok(err.message.includes(TINY_PATHS.tokenizer), err.message);
      });
      const took = Date.now() - started;
      assert.ok(took >= 250 && took < 5_000, `failed after ${took} ms`);
      assert.equal(hub.counts.get(TINY_PATHS.tokenizer), 1, 'a stall is not retried');
      assert.deepEqual(filesUnder(modelCacheDir(dataDir, SPEC)), [TINY_PATHS.tokenizerConfig]);
    });
  }

  it('retries a 5xx with backoff, and not a 404', async () => {
    const flaky: Behaviour = (_req, res, _body, nth) => {
      if (nth > 2) return 'serve';
      res.writeHead(503).end();
      return 'handled';
    };
    const hub = await startHub(SPEC, FILES, (path) => (path === TINY_PATHS.model ? flaky : undefined));
    const warnings: string[] = [];
    const { fetched } = await ensureModel(SPEC, { dataDir: tempDir('mel-'), hub: hub.url, retryDelayMs: 10, onWarning: (w) => warnings.push(w) });
    assert.equal(fetched.length, 3);
    assert.equal(hub.counts.get(TINY_PATHS.model), 3);
    assert.equal(warnings.length, 2);
    assert.match(warnings[0] ?? '', /HTTP 503.*retrying/);

    const missing = tinyModelSpec(FILES, { files: { ...SPEC.files, model: { path: 'onnx/absent.onnx', sha256: SPEC.files.model.sha256 } } });
    const hub404 = await startHub(missing, FILES);
    await rejectsWith(ensureModel(missing, { dataDir: tempDir('mel-'), hub: hub404.url, retryDelayMs: 10 }), (err) => {
      assert.ok(err instanceof ModelCacheError);
      assert.equal(err.code, 'MODEL_HTTP_STATUS');
      assert.equal(err.retryable, false);
    });
    assert.equal(hub404.counts.get('onnx/absent.onnx'), 1);
  });

  it('gives up on an unreachable hub after its retries, retryable', async () => {
    // A port that was just free: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const dead = `http://127.0.0.1:${port}`;
    await rejectsWith(ensureModel(SPEC, { dataDir: tempDir('mel-'), hub: dead, retries: 2, retryDelayMs: 10 }), (err) => {
      assert.ok(err instanceof ModelCacheError);
      assert.equal(err.code, 'MODEL_FETCH_FAILED');
      assert.equal(err.retryable, true);
      assert.match(err.message, /ECONNREFUSED/);
    });
  });
});

/** Cosine similarity of two unit vectors. */
const cos = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);
const norm = (a: Float32Array): number => Math.sqrt(cos(a, a));
const close = (a: Float32Array, b: Float32Array): void => {
  assert.equal(a.length, b.length);
  a.forEach((x, i) => assert.ok(Math.abs(x - (b[i] ?? 0)) < 1e-6, `[${i}] ${x} vs ${b[i]}`));
};

describe('local embedder', () => {
  it('a call waiting for the model to be fetched ends when its signal aborts, and close ends the fetch', async () => {
    let asked!: () => void;
    const fetching = new Promise<void>((resolve) => (asked = resolve));
    // The hub answers the model's headers, then nothing more: a fetch that would wait out its stall bound.
    const stall: Behaviour = (_req, res, body) => {
      res.writeHead(200, { 'content-length': body.byteLength });
      res.write(body.subarray(0, 10));
      asked();
      return 'handled';
    };
    const hub = await startHub(SPEC, FILES, (path) => (path === TINY_PATHS.model ? stall : undefined));
    const embedder = createLocalEmbedder({ dataDir: tempDir('mel-'), model: SPEC, hub: hub.url, stallTimeoutMs: 600_000 });
    const controller = new AbortController();
    const call = embedder.embed(['a text'], 'document', controller.signal);
    await withTimeout(fetching, 20_000, 'the fetch of the model to begin');
    controller.abort();
    await rejectsWith(withTimeout(call, 20_000, 'the aborted call to end'), (err) => {
      assert.ok(err instanceof EmbedderError, String(err));
      assert.match(err.message, /aborted/);
    });
    await withTimeout(embedder.close(), 20_000, 'close to end the fetch');
  });

  it('runs the model: normalised vectors of the model’s width, texts sharing words closer', async () => {
    const hub = await startHub(SPEC, FILES);
    const dataDir = tempDir('mel-');
    const embedder = createLocalEmbedder({ dataDir, model: SPEC, hub: hub.url });
    after(() => embedder.close());
    assert.equal(embedder.kind, 'local');
    assert.equal(embedder.model, SPEC.name);
    assert.equal(embedder.space, `local:${SPEC.name}@${SPEC.revision}`);
    assert.equal(embedder.maxBatch, 32);
    const [cat, dogAndCat, car] = await embedder.embed(['The cat sat on the mat', 'a dog and a cat', 'the car engine on the road'], 'document');
    assert.ok(cat && dogAndCat && car);
    for (const v of [cat, dogAndCat, car]) {
      assert.equal(v.length, TINY_DIMENSIONS);
      assert.ok(Math.abs(norm(v) - 1) < 1e-5);
    }
    assert.ok(cos(cat, dogAndCat) > cos(cat, car) + 0.3, `${cos(cat, dogAndCat)} vs ${cos(cat, car)}`);
    assert.equal(hub.total(), 3);

    // Padding to the longest text of a batch changes no vector.
    const [alone] = await embedder.embed(['cat'], 'document');
    const [padded] = await embedder.embed(['cat', 'the dog sat on the road and the cat ate the cheese'], 'document');
    assert.ok(alone && padded);
    close(alone, padded);

    // More than a batch: one vector per text, in order.
    const many = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 'cat' : 'car'));
    const vectors = await embedder.embed(many, 'document');
    assert.equal(vectors.length, 40);
    close(vectors[38] ?? new Float32Array(), alone);
    assert.deepEqual(await embedder.embed([], 'query'), []);

    // Another embedder on the same data dir uses the cache.
    const again = createLocalEmbedder({ dataDir, model: SPEC, hub: hub.url });
    close((await again.embed(['cat'], 'document'))[0] ?? new Float32Array(), alone);
    await again.close();
    assert.equal(hub.total(), 3, 'nothing fetched for the second embedder');

    await embedder.close();
    await rejectsWith(embedder.embed(['cat'], 'document'), (err) => {
      assert.ok(err instanceof EmbedderError);
      assert.equal(err.retryable, false);
    });
  });

  it('truncates to maxTokens keeping [CLS] and [SEP], prefixes queries, pools CLS, feeds token_type_ids when declared', async () => {
    const withTypes = tinyModelFiles({ tokenTypeIds: true });
    const specs = {
      short: tinyModelSpec(FILES, { name: 'tiny-short', maxTokens: 4 }),
      prefixed: tinyModelSpec(FILES, { name: 'tiny-prefixed', queryPrefix: 'query ', documentPrefix: 'passage ' }),
      cls: tinyModelSpec(FILES, { name: 'tiny-cls', pooling: 'cls' }),
      typed: tinyModelSpec(withTypes, { name: 'tiny-typed' }),
    };
    const plain = createLocalEmbedder({ dataDir: tempDir('mel-'), model: SPEC, hub: (await startHub(SPEC, FILES)).url });
    after(() => plain.close());
    const embed = async (spec: LocalModelSpec, files: Map<string, Uint8Array>, texts: string[], purpose: 'query' | 'document' = 'document'): Promise<Float32Array[]> => {
      const e = createLocalEmbedder({ dataDir: tempDir('mel-'), model: spec, hub: (await startHub(spec, files)).url });
      try {
        return await e.embed(texts, purpose);
      } finally {
        await e.close();
      }
    };
    const [cut] = await embed(specs.short, FILES, ['cat dog car engine road']);
    const [catDog] = await plain.embed(['cat dog'], 'document');
    assert.ok(cut && catDog);
    close(cut, catDog);

    const [query, document] = [(await embed(specs.prefixed, FILES, ['cat'], 'query'))[0], (await embed(specs.prefixed, FILES, ['cat'], 'document'))[0]];
    const [queryCat, passageCat] = await plain.embed(['query cat', 'passage cat'], 'document');
    assert.ok(query && document && queryCat && passageCat);
    close(query, queryCat);
    close(document, passageCat);

    const [clsA, clsB] = await embed(specs.cls, FILES, ['cat', 'the car engine']);
    assert.ok(clsA && clsB);
    close(clsA, clsB); // the [CLS] row, whatever the text
    close(clsA, Float32Array.from([0, 0, 0, 1, 0, 0, 0, 0]));

    const [typed] = await embed(specs.typed, withTypes, ['cat']);
    const [untyped] = await plain.embed(['cat'], 'document');
    assert.ok(typed && untyped);
    close(typed, untyped); // type 0 adds nothing
  });

  it('says what to install when onnxruntime-node is missing, before fetching any model', async () => {
    const hub = await startHub(SPEC, FILES);
    // Resolution from a dir with no node_modules above it: a real "not found".
    const nowhere = createRequire(join(tempDir('mel-'), 'x.cjs'));
    const loadModule = async (specifier: string): Promise<unknown> => (specifier === 'onnxruntime-node' ? nowhere(specifier) : import(specifier));
    const moduleUrl = pathToFileURL('/usr/local/lib/node_modules/memoryd/dist/memoryd.cjs').href;
    const embedder = createLocalEmbedder({ dataDir: tempDir('mel-'), model: SPEC, hub: hub.url, loadModule, moduleUrl });
    await rejectsWith(embedder.embed(['cat'], 'document'), (err) => {
      assert.ok(err instanceof EmbedderError);
      assert.equal(err.retryable, false);
      assert.ok(!err.message.includes('\n'), 'one line');
      assert.match(err.message, /onnxruntime-node is not installed/);
      assert.ok(
        err.message.includes(
          `ONNXRUNTIME_NODE_INSTALL=skip npm install --global --prefix /usr/local onnxruntime-node@${ONNXRUNTIME_NODE_VERSION} @huggingface/tokenizers@${TOKENIZERS_VERSION}`,
        ),
        err.message,
      );
      assert.equal((err.cause as { code?: string }).code, 'MODULE_NOT_FOUND');
    });
    assert.equal(hub.total(), 0, 'no model fetched for a daemon that cannot run it');
    await embedder.close();
  });

  it('names the install place for each layout', () => {
    const npm = 'ONNXRUNTIME_NODE_INSTALL=skip npm install';
    const packages = `onnxruntime-node@${ONNXRUNTIME_NODE_VERSION} @huggingface/tokenizers@${TOKENIZERS_VERSION}`;
    const hint = (path: string): string => runtimeInstallHint(pathToFileURL(path).href);
    assert.equal(hint('/home/u/.nvm/versions/node/v20.15.0/lib/node_modules/memoryd/dist/memoryd.cjs'), `install them beside memoryd with: ${npm} --global --prefix /home/u/.nvm/versions/node/v20.15.0 ${packages}`);
    assert.equal(hint('/srv/app/node_modules/@memoryd/daemon/dist/embed/local/local-embedder.js'), `install them with: ${npm} --prefix /srv/app ${packages}`);
    assert.match(hint('/home/u/memoryd/packages/daemon/dist/embed/local/local-embedder.js'), /run npm install in \/home\/u\/memoryd$/);
  });

  it('finds packages installed beside a globally installed memoryd, by import() and by require()', async () => {
    // The layout `npm install --global --prefix P` makes: P/lib/node_modules/{memoryd,onnxruntime-node,@huggingface/tokenizers}.
    const prefix = tempDir('mel-');
    const global = join(prefix, 'lib', 'node_modules');
    const dist = join(global, 'memoryd', 'dist');
    mkdirSync(dist, { recursive: true });
    mkdirSync(join(global, '@huggingface'));
    symlinkSync(join(ROOT, 'node_modules', 'onnxruntime-node'), join(global, 'onnxruntime-node'));
    symlinkSync(join(ROOT, 'node_modules', '@huggingface', 'tokenizers'), join(global, '@huggingface', 'tokenizers'));
    writeFileSync(join(dist, 'probe.mjs'), "const o = await import('onnxruntime-node'); const t = await import('@huggingface/tokenizers'); console.log(typeof (o.InferenceSession ?? o.default.InferenceSession), typeof t.Tokenizer);\n");
    writeFileSync(join(dist, 'probe.cjs'), "const o = require('onnxruntime-node'); const t = require('@huggingface/tokenizers'); console.log(typeof o.InferenceSession, typeof t.Tokenizer);\n");
    for (const probe of ['probe.mjs', 'probe.cjs']) {
      const out = await new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [join(dist, probe)], { cwd: prefix, stdio: ['ignore', 'pipe', 'inherit'] });
        let text = '';
        child.stdout.on('data', (d: Buffer) => (text += d.toString()));
        child.on('error', reject);
        child.on('close', () => resolve(text.trim()));
      });
      assert.equal(out, 'function function', probe);
    }
    assert.equal(dirname(dist), join(global, 'memoryd'));
  });

  it('refuses an unknown model name or a spec that is not pinned', () => {
    assert.throws(() => createLocalEmbedder({ dataDir: tempDir('mel-'), model: 'no-such-model' }), (err: Error) => err instanceof EmbedderError && /supported: bge-small-en-v1\.5, all-MiniLM-L6-v2/.test(err.message));
    assert.throws(() => createLocalEmbedder({ dataDir: tempDir('mel-'), model: { ...SPEC, revision: 'main' } }), EmbedderError);
  });
});

describe('model table and pins', () => {
  it('pins every supported model to a commit and a SHA-256 per file', () => {
    assert.equal(DEFAULT_LOCAL_MODEL, 'bge-small-en-v1.5');
    assert.deepEqual(LOCAL_MODELS.map((m) => m.name), ['bge-small-en-v1.5', 'all-MiniLM-L6-v2']);
    for (const m of LOCAL_MODELS) {
      assert.equal(invalidModelSpec(m), undefined, m.name);
      assert.equal(m.files.model.path, 'onnx/model_quantized.onnx');
      assert.equal(m.dimensions, 384);
      assert.equal(m.normalize, true);
    }
    const bge = findLocalModel('bge-small-en-v1.5');
    assert.equal(bge?.pooling, 'cls');
    assert.equal(bge?.queryPrefix, 'Represent this sentence for searching relevant passages: ');
    assert.equal(findLocalModel('all-MiniLM-L6-v2')?.pooling, 'mean');
    assert.equal(findLocalModel('all-MiniLM-L6-v2')?.queryPrefix, '');
  });

  it('takes the hub from the option, else MEMORYD_MODEL_HUB, else huggingface.co', () => {
    assert.equal(modelHub(undefined, {}), 'https://huggingface.co');
    assert.equal(modelHub(undefined, { MEMORYD_MODEL_HUB: 'http://127.0.0.1:9/mirror/' }), 'http://127.0.0.1:9/mirror');
    assert.equal(modelHub('http://a', { MEMORYD_MODEL_HUB: 'http://b' }), 'http://a');
    const bge = findLocalModel('bge-small-en-v1.5');
    assert.ok(bge);
    assert.equal(
      modelFileUrl('https://huggingface.co', bge, bge.files.model),
      'https://huggingface.co/Xenova/bge-small-en-v1.5/resolve/ea104dacec62c0de699686887e3f920caeb4f3e3/onnx/model_quantized.onnx',
    );
  });

  it('pins the runtime packages alike: optional peers of the daemon, exact devDependencies of the root', () => {
    const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    const daemon = JSON.parse(readFileSync(join(ROOT, 'packages/daemon/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      peerDependencies?: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    };
    const pins = { 'onnxruntime-node': ONNXRUNTIME_NODE_VERSION, '@huggingface/tokenizers': TOKENIZERS_VERSION };
    for (const [name, version] of Object.entries(pins)) {
      assert.equal(root.devDependencies[name], version, `root devDependency ${name}`);
      assert.equal(daemon.peerDependencies?.[name], version, `daemon peer ${name}`);
      assert.equal(daemon.peerDependenciesMeta?.[name]?.optional, true, `daemon peer ${name} optional`);
      assert.equal(daemon.dependencies[name], undefined, `${name} is not in the default install`);
    }
    // onnxruntime-node's install script fetches CUDA libraries from NuGet on Linux x64: npm is told not to run it.
    assert.equal((root as { allowScripts?: Record<string, boolean> }).allowScripts?.['onnxruntime-node'], false);
  });
});
