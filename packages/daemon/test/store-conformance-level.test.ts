// Issue 16: the store's contract (helpers/store-conformance.ts), run on
// the LevelDB store as the daemon opens it, each store in a temp data dir.
import type { MemoryStore } from '@memoryd/daemon';
import { storeConformance } from './helpers/store-conformance.js';
import { openTempStore, reopen, useStoreCleanup } from './helpers/store.js';

useStoreCleanup();

const dataDirs = new Map<MemoryStore, string>();

storeConformance({
  name: 'level',
  async open() {
    const { store, dataDir } = await openTempStore();
    dataDirs.set(store, dataDir);
    return store;
  },
  async reopen(store) {
    const dataDir = dataDirs.get(store);
    if (dataDir === undefined) throw new Error('reopen of a store this backend did not open');
    const again = await reopen(store, dataDir);
    dataDirs.set(again, dataDir);
    return again;
  },
  // useStoreCleanup closes the stores and removes their dirs.
  async cleanup() {},
});
