// memoryctl embeddings status|rebuild|fetch and the embedder lines of
// memoryctl status (docs/embeddings.md), against a real daemon whose
// embedder is a fake Ollama server on 127.0.0.1.
import assert from 'node:assert/strict';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cleanupAll, type DaemonHandle, type FakeEmbedder, startDaemon, startFakeEmbedder, tempDir, trackCloser, waitFor } from '@memoryd/test-support';
import { memoryctl } from './helpers/memoryctl.js';

after(cleanupAll);

describe('memoryctl embeddings', () => {
  let d: DaemonHandle;
  let server: FakeEmbedder;
  const ctl = (...args: string[]) => memoryctl(['--socket', d.socket, ...args]);
  before(async () => {
    server = await startFakeEmbedder({ vectors: 'hash', dimensions: 16 });
    trackCloser(() => server.close());
    d = await startDaemon({ args: ['--embedder', 'ollama', '--embed-url', server.url, '--embed-model', 'fake'] });
  });
  after(async () => {
    await d.stop();
  });

  it('status: embedder, model, dimensions, pending and the last error, as lines and as JSON', async () => {
    for (const content of ['one fact', 'another fact', 'a third fact']) assert.equal((await ctl('add', 'ann', content)).code, 0);
    await waitFor(async () => JSON.parse((await ctl('--json', 'embeddings', 'status')).stdout).pending === 0, 20_000, 'embedded');
    const shown = await ctl('embeddings', 'status');
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^embedder: +ollama$/m);
    assert.match(shown.stdout, /^model: +fake$/m);
    assert.match(shown.stdout, /^dimensions: +16$/m);
    assert.match(shown.stdout, /^pending: +0$/m);
    assert.match(shown.stdout, /^last error: +none$/m);
    assert.deepEqual(JSON.parse((await ctl('--json', 'embeddings', 'status')).stdout), { embedder: 'ollama', model: 'fake', dimensions: 16, pending: 0 });
    const status = await ctl('status');
    assert.match(status.stdout, /^embedder: +ollama fake \(16 dimensions\)$/m);
    assert.match(status.stdout, /^to embed: +0$/m);

    server.setMode('down');
    assert.equal((await ctl('add', 'ann', 'a fact while it is down')).code, 0);
    await waitFor(async () => /HTTP 503/.test((await ctl('embeddings', 'status')).stdout), 20_000, 'the failure shown');
    assert.match((await ctl('status')).stdout, /^embedder error: +.*HTTP 503/m);
    server.setMode('ok');
    await waitFor(async () => /^last error: +none$/m.test((await ctl('embeddings', 'status')).stdout), 30_000, 'recovered');
  });

  it('rebuild queues every fact again; with --wait it returns once they are embedded', async () => {
    const before = server.texts;
    const r = await ctl('embeddings', 'rebuild', '--wait');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Embedded 4 facts again\.$/m);
    assert.ok(server.texts >= before + 4);
    const j = JSON.parse((await ctl('--json', 'embeddings', 'rebuild')).stdout);
    assert.deepEqual(j, { queued: 4 });
  });

  it('rebuild --wait ends with exit 1 and the cause when nothing is embedded for --timeout seconds', async () => {
    server.setMode('down');
    try {
      const r = await ctl('embeddings', 'rebuild', '--wait', '--timeout', '2');
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /^memoryctl: no fact embedded for 2 s, 4 still to embed; the embedder fails: .*HTTP 503/m);
    } finally {
      server.setMode('ok');
    }
    await waitFor(async () => JSON.parse((await ctl('--json', 'embeddings', 'status')).stdout).pending === 0, 30_000, 'embedded once it is back');
  });

  it('rebuild --wait ends with exit 1 when the queue stops on a model the provider does not have', async () => {
    const other = await startDaemon({ args: ['--embedder', 'ollama', '--embed-url', server.url, '--embed-model', 'no-such-model'] });
    try {
      const octl = (...args: string[]) => memoryctl(['--socket', other.socket, ...args]);
      assert.equal((await octl('add', 'ann', 'a fact')).code, 0);
      const r = await octl('embeddings', 'rebuild', '--wait');
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /^memoryctl: the embedder stopped: .*HTTP 404: model "no-such-model" not found/m);
      const shown = await octl('embeddings', 'status');
      assert.match(shown.stdout, /^stopped: +yes: restart memoryd with another configuration, or run memoryctl embeddings rebuild$/m);
      assert.match(shown.stdout, /^last error: +.*HTTP 404.* \(at \d{4}-\d\d-\d\dT/m);
    } finally {
      await other.stop();
    }
  });

  it('refuses a wrong action or option with exit 2 and a sentence; has --help', async () => {
    const bad = await ctl('embeddings', 'refresh');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /ACTION must be status, rebuild or fetch, got "refresh"/);
    assert.equal((await ctl('embeddings', 'status', '--wait')).code, 2);
    assert.equal((await ctl('embeddings', 'rebuild', '--model', 'x')).code, 2);
    const help = await memoryctl(['embeddings', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: memoryctl embeddings status$/m);
  });
});

describe('memoryctl embeddings without an embedder', () => {
  it('status says search is by words only (exit 0); rebuild is the daemon refusing (exit 2, its sentence)', async () => {
    const d = await startDaemon();
    try {
      const shown = await memoryctl(['--socket', d.socket, 'embeddings', 'status']);
      assert.equal(shown.code, 0);
      assert.match(shown.stdout, /runs without an embedder: search is by words only/);
      assert.deepEqual(JSON.parse((await memoryctl(['--socket', d.socket, '--json', 'embeddings', 'status'])).stdout), { embedder: 'none' });
      const rebuild = await memoryctl(['--socket', d.socket, 'embeddings', 'rebuild']);
      assert.equal(rebuild.code, 2, rebuild.stderr);
      assert.match(rebuild.stderr, /without an embedder/);
    } finally {
      await d.stop();
    }
  });
});

describe('memoryctl embeddings fetch', () => {
  it('fails in one line, exit 1, when the model hub cannot be reached, and names an unknown model', async () => {
    const dataDir = join(tempDir('fetch-'), 'data');
    // A port nothing listens on: one a server held and let go.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await memoryctl(['--data-dir', dataDir, 'embeddings', 'fetch'], { env: { MEMORYD_MODEL_HUB: `http://127.0.0.1:${port}` }, timeoutMs: 60_000 });
    assert.equal(unreachable.code, 1, unreachable.stderr);
    assert.match(unreachable.stderr, /^memoryd: cannot fetch the model: .*(ECONNREFUSED|refused)/m);
    const unknown = await memoryctl(['--data-dir', dataDir, 'embeddings', 'fetch', '--model', 'gpt-9']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /unknown local model "gpt-9" \(supported: bge-small-en-v1\.5, all-MiniLM-L6-v2\)/);
  });
});
