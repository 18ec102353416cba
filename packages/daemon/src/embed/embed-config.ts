import type { EmbedderKind } from './embedder.js';

/** The embedder the flags choose (--embedder, --embed-url, --embed-model, --embed-key-file). */
export interface EmbedConfig {
  kind: EmbedderKind;
  url: string;
  model: string;
  /** A file whose first line is the API key (openai); never the key itself. */
  keyFile: string | undefined;
}

/** Ollama's own address: where --embed-url points unless told otherwise. */
export const DEFAULT_EMBED_URL = 'http://127.0.0.1:11434';
/** Each provider's model unless --embed-model names one. */
export const DEFAULT_EMBED_MODELS: Record<Exclude<EmbedderKind, 'none'>, string> = {
  ollama: 'nomic-embed-text',
  openai: 'text-embedding-3-small',
  local: 'bge-small-en-v1.5',
};
