import type { EmbedConfig } from './embed-config.js';
import { DaemonError, DaemonErrorCodes } from '../errors.js';
import type { Logger } from '../logger.js';
import { readSecretLine } from '../secret-file.js';
import type { Embedder } from './embedder.js';
import { OllamaEmbedder } from './ollama-embedder.js';
import { OpenAiEmbedder } from './openai-embedder.js';
import { createLocalEmbedder } from './local/local-embedder.js';
import { formatFetchProgress } from './local/model-cache.js';

/** A running fetch of the local model logs its progress this often. */
const PROGRESS_EVERY_MS = 5_000;

/** Bound on one call embedding a batch of facts (a CPU-bound server may take a while for 64 texts). */
export const DOCUMENT_TIMEOUT_MS = 60_000;

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
      const key = config.keyFile === undefined ? undefined : await readSecretLine(config.keyFile, '--embed-key-file', 'embedder key', log);
      if (key === '') throw new DaemonError(DaemonErrorCodes.Usage, `--embed-key-file ${config.keyFile} has no key on its first line`);
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
