// The image read-ahead's reader: a file read by positioned reads comes
// back byte for byte, in a buffer of its own.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cleanupAll, tempDir } from '@memoryd/test-support';
import { readWholeFile } from '../dist/store/level/read-whole-file.js';

after(cleanupAll);

describe('readWholeFile', () => {
  it('reads a file whole, whatever its size', async () => {
    const dir = tempDir('memoryd-read-whole-file-');
    for (const size of [0, 1, 4095, 4096, 4097, 3 * 4096 + 17, 1_000_003]) {
      const path = join(dir, `f${size}`);
      writeFileSync(path, randomBytes(size));
      const expected = readFileSync(path);
      const got = await readWholeFile(path);
      assert.equal(got.length, size, `size ${size}`);
      assert.ok(got.equals(expected), `size ${size}: the bytes differ`);
      // Its own buffer, so typed arrays can view it at aligned offsets.
      assert.equal(got.byteOffset, 0);
    }
  });

  it('rejects with the cause when the file cannot be read', async () => {
    const dir = tempDir('memoryd-read-whole-file-');
    await assert.rejects(readWholeFile(join(dir, 'absent')), { code: 'ENOENT' });
    await assert.rejects(readWholeFile(dir), { code: 'EISDIR' });
  });
});
