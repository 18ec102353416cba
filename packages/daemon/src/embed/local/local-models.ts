/**
 * The sentence-embedding models the `local` embedder runs (docs/embeddings.md):
 * each pinned to one Hugging Face commit, with the SHA-256 of every file it
 * needs, so a repository update can never change what the daemon runs and a
 * damaged or substituted file is refused before it is loaded.
 *
 * Where the pins come from: Hugging Face serves an LFS file's SHA-256 as its
 * `oid`. No file could be downloaded from the machine this table was written
 * on, so every digest below was taken from independent public projects that
 * pin the same file at the same commit and agree byte for byte (named beside
 * each model). Each is to be re-checked by the first real fetch: a wrong pin
 * fails that fetch with the expected and actual digests, it never loads.
 */

/** One file of a model: its path in the repository at the pinned revision. */
export interface ModelFile {
  /** Repository-relative path (`onnx/model_quantized.onnx`); also its path under the cache dir. */
  readonly path: string;
  /** Lowercase hex SHA-256 of the file's bytes. */
  readonly sha256: string;
  /** Size in bytes, when known: for the progress line before a server says it. */
  readonly bytes?: number;
}

/** How a sentence vector is read out of the model's per-token output. */
export type Pooling = 'mean' | 'cls';

/** A model the local embedder can run: where to fetch it, how to run it. */
export interface LocalModelSpec {
  /** The name `--embedder-model` takes and the vector space carries (`bge-small-en-v1.5`). */
  readonly name: string;
  /** Hugging Face repository (`Xenova/bge-small-en-v1.5`). */
  readonly repo: string;
  /** The commit the files are fetched at: 40 hex digits, never a branch. */
  readonly revision: string;
  readonly files: {
    /** The ONNX graph (the q8 export, `onnx/model_quantized.onnx`). */
    readonly model: ModelFile;
    /** `tokenizer.json`, read by @huggingface/tokenizers. */
    readonly tokenizer: ModelFile;
    /** `tokenizer_config.json`, its companion (special tokens, casing). */
    readonly tokenizerConfig: ModelFile;
  };
  /** Length of each vector. */
  readonly dimensions: number;
  /** `mean`: the average of the token vectors under the attention mask; `cls`: the first token's. */
  readonly pooling: Pooling;
  /** Whether vectors are scaled to length 1 (cosine similarity becomes a dot product). */
  readonly normalize: boolean;
  /** Put before a text embedded for purpose `query` (an instruction), `''` for none. */
  readonly queryPrefix: string;
  /** Put before a text embedded for purpose `document`, `''` for none. */
  readonly documentPrefix: string;
  /** Tokens the model takes, special tokens included; a longer text is truncated. */
  readonly maxTokens: number;
}

/** The hub files are fetched from unless `MEMORYD_MODEL_HUB` or an option names another. */
export const DEFAULT_MODEL_HUB = 'https://huggingface.co';

/** The environment variable that points the model fetch at another hub (a mirror, or a test's server). */
export const MODEL_HUB_ENV = 'MEMORYD_MODEL_HUB';

/**
 * The files both BERT-family exports share: `tokenizer_config.json` is the
 * same 366 bytes in Xenova/bge-small-en-v1.5 and Xenova/all-MiniLM-L6-v2.
 */
const BERT_TOKENIZER_CONFIG: ModelFile = {
  path: 'tokenizer_config.json',
  sha256: '9261e7d79b44c8195c1cada2b453e55b00aeb81e907a6664974b4d7776172ab3',
  bytes: 366,
};

/**
 * BAAI's bge-small-en-v1.5 in Xenova's ONNX export, dynamic int8. CLS
 * pooling and the retrieval instruction on queries only, as BAAI's model card
 * says. Revision and digests as pinned, in agreement, by several public
 * projects' model manifests (one states it checked them against the LFS
 * metadata and a download; all give model_quantized.onnx as 34,014,426 bytes).
 */
const BGE_SMALL_EN_V1_5: LocalModelSpec = {
  name: 'bge-small-en-v1.5',
  repo: 'Xenova/bge-small-en-v1.5',
  revision: 'ea104dacec62c0de699686887e3f920caeb4f3e3',
  files: {
    model: {
      path: 'onnx/model_quantized.onnx',
      sha256: '6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4',
      bytes: 34_014_426,
    },
    tokenizer: {
      path: 'tokenizer.json',
      sha256: 'd241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66',
      bytes: 711_396,
    },
    tokenizerConfig: BERT_TOKENIZER_CONFIG,
  },
  dimensions: 384,
  pooling: 'cls',
  normalize: true,
  queryPrefix: 'Represent this sentence for searching relevant passages: ',
  documentPrefix: '',
  maxTokens: 512,
};

/**
 * sentence-transformers' all-MiniLM-L6-v2 in Xenova's ONNX export, dynamic
 * int8: mean pooling, no prefix (queries and passages alike). Revision and
 * digests as pinned, in agreement, by several public projects (one pins
 * `751bff37…` with all six of the repository's small files; others pin the
 * same model and tokenizer digests on `main` and say `main` was that commit).
 * Trained on 256-token inputs; the position table takes 512.
 */
const ALL_MINILM_L6_V2: LocalModelSpec = {
  name: 'all-MiniLM-L6-v2',
  repo: 'Xenova/all-MiniLM-L6-v2',
  revision: '751bff37182d3f1213fa05d7196b954e230abad9',
  files: {
    model: {
      path: 'onnx/model_quantized.onnx',
      sha256: 'afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1',
      bytes: 22_972_370,
    },
    tokenizer: {
      path: 'tokenizer.json',
      sha256: 'da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0',
      bytes: 711_661,
    },
    tokenizerConfig: BERT_TOKENIZER_CONFIG,
  },
  dimensions: 384,
  pooling: 'mean',
  normalize: true,
  queryPrefix: '',
  documentPrefix: '',
  // sentence-transformers truncates this model at 256 word pieces (its max_seq_length).
  maxTokens: 256,
};

/** The supported models, the default first. */
export const LOCAL_MODELS: readonly LocalModelSpec[] = [BGE_SMALL_EN_V1_5, ALL_MINILM_L6_V2];

/** The model `--embedder local` runs when none is named. */
export const DEFAULT_LOCAL_MODEL = BGE_SMALL_EN_V1_5.name;

/** The supported model of that name, or undefined. */
export function findLocalModel(name: string): LocalModelSpec | undefined {
  return LOCAL_MODELS.find((m) => m.name === name);
}

/** The files of a model, in fetch order (the small ones first, so a bad hub fails fast). */
export function modelFiles(spec: LocalModelSpec): ModelFile[] {
  return [spec.files.tokenizerConfig, spec.files.tokenizer, spec.files.model];
}

/**
 * The hub base URL: the option, else `MEMORYD_MODEL_HUB`, else
 * huggingface.co; without a trailing slash.
 */
export function modelHub(option?: string, env: NodeJS.ProcessEnv = process.env): string {
  const hub = option ?? env[MODEL_HUB_ENV] ?? '';
  return (hub === '' ? DEFAULT_MODEL_HUB : hub).replace(/\/+$/, '');
}

/** Where a file of a model is fetched from: `<hub>/<repo>/resolve/<revision>/<path>`, Hugging Face's layout. */
export function modelFileUrl(hub: string, spec: LocalModelSpec, file: ModelFile): string {
  const path = file.path.split('/').map(encodeURIComponent).join('/');
  return `${hub}/${spec.repo}/resolve/${spec.revision}/${path}`;
}

const HEX40 = /^[0-9a-f]{40}$/;
const HEX64 = /^[0-9a-f]{64}$/;
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Why a spec cannot be used, or undefined when it can: the revision is a
 * commit, every digest is 64 hex digits, names and paths stay inside the
 * cache dir. Checked once, where a spec enters (the embedder's options).
 */
export function invalidModelSpec(spec: LocalModelSpec): string | undefined {
  if (!SAFE_NAME.test(spec.name)) return `model name ${JSON.stringify(spec.name)} is not a plain name`;
  if (!HEX40.test(spec.revision)) return `revision ${JSON.stringify(spec.revision)} of ${spec.name} is not a 40-digit commit hash`;
  for (const file of modelFiles(spec)) {
    if (!HEX64.test(file.sha256)) return `${file.path} of ${spec.name} has no 64-digit lowercase sha256`;
    const parts = file.path.split('/');
    if (parts.some((p) => !SAFE_NAME.test(p))) return `file path ${JSON.stringify(file.path)} of ${spec.name} is not a plain relative path`;
  }
  if (!Number.isInteger(spec.dimensions) || spec.dimensions < 1) return `dimensions of ${spec.name} must be a positive integer`;
  if (!Number.isInteger(spec.maxTokens) || spec.maxTokens < 2) return `maxTokens of ${spec.name} must be an integer of at least 2`;
  return undefined;
}
