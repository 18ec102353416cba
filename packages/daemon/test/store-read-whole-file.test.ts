// The image read-ahead's reader: a file read as several positioned reads
// at once comes back byte for byte, in a buffer of its own.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cleanupAll, tempDir } from '@memoryd/test-support';
import { readInParts } from '../dist/store/read-in-parts.js';

after(cleanupAll);

describe('readInParts', () => {
  it('reads a file whole, in one part or several, whatever its size', async () => {
    const dir = tempDir('memoryd-read-in-parts-');
    for (const size of [0, 1, 4095, 4096, 4097, 3 * 4096 + 17, 1_000_003]) {
      const path = join(dir, `f${size}`);
      writeFileSync(path, randomBytes(size));
      const expected = readFileSync(path);
      for (const parts of [1, 2, 3, 8, 1000]) {
        const got = await readInParts(path, parts);
        assert.equal(got.length, size, `size ${size}, ${parts} parts`);
        assert.ok(got.equals(expected), `size ${size}, ${parts} parts: the bytes differ`);
        // Its own buffer, so typed arrays can view it at aligned offsets.
        assert.equal(got.byteOffset, 0);
      }
    }
  });

  it('rejects with the cause when the file cannot be read', async () => {
    const dir = tempDir('memoryd-read-in-parts-');
    await assert.rejects(readInParts(join(dir, 'absent')), { code: 'ENOENT' });
    await assert.rejects(readInParts(dir), { code: 'EISDIR' });
  });
});
