import { EmbedderError } from './embedder.js';
import { DEFAULT_LOCAL_MODEL, LOCAL_MODELS, findLocalModel } from './local/local-models.js';
import { type FetchProgress, ensureModel, formatFetchProgress } from './local/model-cache.js';

/** A progress line at most this often when stderr is not a terminal. */
const LINE_EVERY_MS = 2_000;

/**
 * `memoryd --fetch-model` (and `memoryctl embeddings fetch`): puts the
 * local model's files in the data dir's cache, checked against their
 * pinned SHA-256, saying how far it got; the daemon then starts with
 * `--embedder local` without waiting for a download. Returns the exit code.
 */
export async function runFetchModel(dataDir: string, model: string | undefined, print: (line: string) => void): Promise<number> {
  const name = model ?? DEFAULT_LOCAL_MODEL;
  const spec = findLocalModel(name);
  if (spec === undefined) {
    throw new EmbedderError(`unknown local model ${JSON.stringify(name)} (supported: ${LOCAL_MODELS.map((m) => m.name).join(', ')})`, { retryable: false });
  }
  const tty = process.stderr.isTTY === true;
  let last = 0;
  const onProgress = (p: FetchProgress) => {
    const done = p.total !== undefined && p.done >= p.total;
    if (tty) process.stderr.write(`\r${formatFetchProgress(p)}\x1b[K${done ? '\n' : ''}`);
    else if (done || Date.now() - last >= LINE_EVERY_MS) {
      process.stderr.write(`${formatFetchProgress(p)}\n`);
      last = Date.now();
    }
  };
  const cached = await ensureModel(spec, { dataDir, onProgress, onWarning: (message) => process.stderr.write(`memoryd: ${message}\n`) });
  print(
    cached.fetched.length === 0
      ? `${spec.name} is already in ${cached.dir}, every file checked.`
      : `Fetched ${spec.name} (${cached.fetched.length} files, checked) into ${cached.dir}.`,
  );
  return 0;
}
