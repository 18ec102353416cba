// Issue 12 through the shim: when the daemon's disk fills, a tool that
// writes fails with `TOOL error: CAUSE` naming the full disk, reads go on,
// and once the space is back the same shim writes again. Skipped, saying
// why, where no tmpfs can be mounted (not root).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { type TestContext, after, it } from 'node:test';
import { cleanupAll, fillDisk, mountTmpfs, startDaemon, tempDir, waitFor } from '@memoryd/test-support';
import { assertFailure, assertSuccess, overStdio } from './helpers/mcp.js';

after(cleanupAll);

it('a full disk: write tools say so, reads go on, writes come back by themselves', async (t: TestContext) => {
  const fs = mountTmpfs(16);
  if ('skip' in fs) return t.skip(fs.skip);
  const socket = join(tempDir(), 'd.sock');
  const daemon = await startDaemon({ socket, dataDir: join(fs.dir, 'data'), logLevel: 'warn' });
  const s = await overStdio(['--socket', socket, '--no-autostart']);
  assertSuccess(s, 'memory_add', await s.call('memory_add', { agent_id: 'full', content: 'written before the disk filled' }));

  const free = fillDisk(fs.dir);
  let text = '';
  for (let i = 0; i < 10_000 && text === ''; i++) {
    const r = await s.call('memory_add', { agent_id: 'full', content: `written while the disk fills ${i}` });
    if (r.isError === true) text = assertFailure(r);
  }
  assert.match(text, /^memory add error: .*No space left on device/);
  assert.match(assertFailure(await s.call('checkpoint_save', { agent_id: 'full', state: { a: 1 } })), /^checkpoint save error: the store is read-only: .*No space left on device/);
  const found = assertSuccess(s, 'memory_search', await s.call('memory_search', { agent_id: 'full', query: 'written before' }));
  assert.ok((found.structured['count'] as number) > 0, 'reads go on');

  free();
  await waitFor(async () => (await s.call('memory_add', { agent_id: 'full', content: 'written after the space came back' })).isError !== true, 20_000, 'writes to come back');
  await s.close();
  await daemon.stop();
});
