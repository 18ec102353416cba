import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { locateMemoryd } from '@memoryd/client';
import { cleanupAll, tempDir } from '@memoryd/test-support';

after(cleanupAll);

/** A file at `path` (its folders made). */
function touch(path: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '');
  return path;
}

describe('locating memoryd', () => {
  it('takes the option, then MEMORYD_BIN, and runs it with this node', () => {
    const from = touch(join(tempDir(), 'dist', 'front.cjs'));
    assert.deepEqual(locateMemoryd('/opt/m/memoryd.js', { MEMORYD_BIN: '/env/memoryd.js' }, from), { command: process.execPath, args: ['/opt/m/memoryd.js'] });
    assert.deepEqual(locateMemoryd(undefined, { MEMORYD_BIN: '/env/memoryd.js' }, from), { command: process.execPath, args: ['/env/memoryd.js'] });
  });

  it('prefers the memoryd of its own release (bin/ beside dist/) to node_modules/.bin', () => {
    const root = realpathSync(tempDir());
    const pkg = join(root, 'node_modules', 'memoryd');
    const from = touch(join(pkg, 'dist', 'memoryctl.cjs'));
    const own = touch(join(pkg, 'bin', 'memoryd.js'));
    const other = touch(join(root, 'elsewhere', 'memoryd.js'));
    mkdirSync(join(root, 'node_modules', '.bin'));
    symlinkSync(other, join(root, 'node_modules', '.bin', 'memoryd'));
    assert.deepEqual(locateMemoryd(undefined, {}, from), { command: process.execPath, args: [own] });
  });

  it('walks up to node_modules/.bin/memoryd (realpath), else falls back to memoryd on PATH', () => {
    const root = realpathSync(tempDir());
    const from = touch(join(root, 'node_modules', '@memoryd', 'client', 'dist', 'locate-memoryd.js'));
    assert.deepEqual(locateMemoryd(undefined, {}, from), { command: 'memoryd', args: [] });
    const target = touch(join(root, 'node_modules', '@memoryd', 'daemon', 'bin', 'memoryd.js'));
    mkdirSync(join(root, 'node_modules', '.bin'));
    symlinkSync(target, join(root, 'node_modules', '.bin', 'memoryd'));
    assert.deepEqual(locateMemoryd(undefined, {}, from), { command: process.execPath, args: [target] });
  });

});
