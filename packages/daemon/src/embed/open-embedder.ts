import { readFile, stat } from 'node:fs/promises';
import type { EmbedConfig } from '../config.js';
import { DaemonError, DaemonErrorCodes } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Embedder } from './embedder.js';
import { OllamaEmbedder } from './ollama-embedder.js';
import { OpenAiEmbedder } from './openai-embedder.js';
import { createLocalEmbedder } from './local/local-embedder.js';
import { formatFetchProgress } from './local/model-cache.js';

/** A running fetch of the local model logs its progress this often. */
const PROGRESS_EVERY_MS = 5_000;

/** Bound on one call embedding a batch of facts (a CPU-bound server may take a while for 64 texts). */
export const DOCUMENT_TIMEOUT_MS = 60_000;

/** The API key on the first line of `file`; a file others may read is used, with a warning. The key is never logged. */
async function readKey(file: string, log: Logger): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
    if (((await stat(file)).mode & 0o077) !== 0) log.warn('the embedder key file can be read by others; make it private (chmod 600)', { file });
  } catch (err) {
    throw new DaemonError(DaemonErrorCodes.Usage, `cannot read --embed-key-file ${file}: ${(err as Error).message}`, { cause: err });
  }
  const key = text.split('\n')[0]!.trim();
  if (key === '') throw new DaemonError(DaemonErrorCodes.Usage, `--embed-key-file ${file} has no key on its first line`);
  return key;
}

/**
 * The embedder the configuration names, or undefined for `none`. Nothing
 * here talks to the provider: a provider that is down at start is the
 * queue's to wait for, not a reason to refuse to start.
 */
export async function openEmbedder(config: EmbedConfig, dataDir: string, log: Logger): Promise<Embedder | undefined> {
  switch (config.kind) {
    case 'none':
      return undefined;
    case 'ollama':
      return new OllamaEmbedder({ url: config.url, model: config.model, timeoutMs: DOCUMENT_TIMEOUT_MS });
    case 'openai': {
      const key = config.keyFile === undefined ? undefined : await readKey(config.keyFile, log);
      return new OpenAiEmbedder({ url: config.url, model: config.model, timeoutMs: DOCUMENT_TIMEOUT_MS, key });
    }
    case 'local': {
      let last = 0;
      try {
        return createLocalEmbedder({
          dataDir,
          model: config.model,
          // The first start fetches the model in the background: a line every few seconds says how far.
          onProgress: (p) => {
            if (Date.now() - last < PROGRESS_EVERY_MS && !(p.total !== undefined && p.done >= p.total)) return;
            last = Date.now();
            log.info(formatFetchProgress(p), { model: p.model, file: p.file });
          },
          onWarning: (message) => log.warn(message),
        });
      } catch (err) {
        throw new DaemonError(DaemonErrorCodes.Usage, (err as Error).message, { cause: err });
      }
    }
  }
}
