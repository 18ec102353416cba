// A tiny sentence-embedding model made in the test, so the local embedder's
// whole path (fetch, verify, tokenize, onnxruntime, pool) runs with no hub:
// a BERT-shaped WordPiece tokenizer over a few words, and an ONNX graph that
// looks each token up in an 8-dimensional table and zeroes padded positions.
//
//   last_hidden_state[b, s, :] = embeddings[input_ids[b, s], :] * attention_mask[b, s]
//                                (+ type_embeddings[token_type_ids[b, s], :] with tokenTypeIds)
//
// The ONNX file is protobuf written by hand below; field numbers from
// onnx/onnx.proto (ModelProto, GraphProto, NodeProto, TensorProto,
// ValueInfoProto, TypeProto), opset 13.
import { createHash } from 'node:crypto';
import type { LocalModelSpec } from '../../dist/embed/local/local-models.js';

/** Width of the tiny model's vectors. */
export const TINY_DIMENSIONS = 8;

/** Repository paths of the tiny model's files, as a hub serves them. */
export const TINY_PATHS = {
  model: 'onnx/model_quantized.onnx',
  tokenizer: 'tokenizer.json',
  tokenizerConfig: 'tokenizer_config.json',
} as const;

const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'] as const;

/**
 * Words by topic: a word's vector is its topic's axis plus a little of its
 * own, so texts about one topic point one way and sharing words brings
 * texts closer. `query` and `passage` are for prefixes; the rest are glue.
 */
const TOPICS: readonly (readonly string[])[] = [
  ['cat', 'dog', 'pet', 'fur', 'kitten'],
  ['car', 'engine', 'road', 'wheel', 'truck'],
  ['bread', 'cheese', 'soup', 'butter', 'oven'],
  ['the', 'a', 'on', 'and', 'sat', 'query', 'passage'],
];

/** The vocabulary, id order: specials first, then every word. */
export const TINY_VOCAB: readonly string[] = [...SPECIALS, ...TOPICS.flat()];

/**
 * Row `id` of the embedding table. [CLS] is a small constant (what CLS
 * pooling returns, whatever the text), [UNK] its own, [PAD] and [SEP] zero;
 * glue words are weak.
 */
function embeddingRow(id: number): number[] {
  const row = new Array<number>(TINY_DIMENSIONS).fill(0);
  const token = TINY_VOCAB[id] ?? '[UNK]';
  if (token === '[CLS]') row[3] = 0.1;
  if (token === '[UNK]') row[7] = 0.5;
  if (SPECIALS.includes(token as (typeof SPECIALS)[number])) return row;
  const topic = TOPICS.findIndex((t) => t.includes(token));
  const glue = topic === TOPICS.length - 1;
  row[topic] = glue ? 0.2 : 1;
  // The word's own part: a different small mix of dims 4..7 per word.
  for (let j = 4; j < TINY_DIMENSIONS; j++) row[j] = (((id * (j + 3)) % 7) - 3) / 20;
  return row;
}

/** A tiny ONNX model; `tokenTypeIds` adds a third input, token_type_ids, the way BERT exports have it. */
export function tinyOnnxModel(options: { tokenTypeIds?: boolean } = {}): Uint8Array {
  const vocab = TINY_VOCAB.length;
  const table = Array.from({ length: vocab }, (_, id) => embeddingRow(id)).flat();
  const initializers = [floatTensor('embeddings', [vocab, TINY_DIMENSIONS], table), int64Tensor('axes', [1], [2])];
  const nodes = [node('Gather', ['embeddings', 'input_ids'], ['gathered'])];
  let hidden = 'gathered';
  if (options.tokenTypeIds === true) {
    // Type 0 adds nothing, type 1 would add a constant: an input the graph really uses.
    initializers.push(floatTensor('type_embeddings', [2, TINY_DIMENSIONS], [...new Array<number>(TINY_DIMENSIONS).fill(0), ...new Array<number>(TINY_DIMENSIONS).fill(1)]));
    nodes.push(node('Gather', ['type_embeddings', 'token_type_ids'], ['typed']), node('Add', ['gathered', 'typed'], ['summed']));
    hidden = 'summed';
  }
  nodes.push(
    node('Cast', ['attention_mask'], ['mask_float'], [intAttribute('to', DataType.FLOAT)]),
    node('Unsqueeze', ['mask_float', 'axes'], ['mask_3d']),
    node('Mul', [hidden, 'mask_3d'], ['last_hidden_state']),
  );
  const tokens = ['batch', 'sequence'];
  const inputs = [valueInfo('input_ids', DataType.INT64, tokens), valueInfo('attention_mask', DataType.INT64, tokens)];
  if (options.tokenTypeIds === true) inputs.push(valueInfo('token_type_ids', DataType.INT64, tokens));
  const graph = new Proto();
  for (const n of nodes) graph.message(1, n);
  graph.string(2, 'tiny');
  for (const t of initializers) graph.message(5, t);
  for (const i of inputs) graph.message(11, i);
  graph.message(12, valueInfo('last_hidden_state', DataType.FLOAT, [...tokens, TINY_DIMENSIONS]));
  const model = new Proto();
  model.varint(1, 8); // ir_version 8 (onnxruntime 1.30 reads up to 11)
  model.string(2, 'memoryd-test');
  model.message(7, graph);
  model.message(8, new Proto().string(1, '').varint(2, 13)); // opset_import: default domain, opset 13
  return model.finish();
}

/** A BERT-shaped WordPiece tokenizer.json over {@link TINY_VOCAB}: lowercases, splits on spaces and punctuation, adds [CLS] … [SEP]. */
export function tinyTokenizerJson(): string {
  const vocab = Object.fromEntries(TINY_VOCAB.map((w, id) => [w, id]));
  const special = (content: string): object => ({ id: TINY_VOCAB.indexOf(content), content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  return JSON.stringify({
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIALS.map(special),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [TINY_VOCAB.indexOf('[CLS]')], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [TINY_VOCAB.indexOf('[SEP]')], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  });
}

/** The tokenizer_config.json beside it. */
export function tinyTokenizerConfig(): string {
  return JSON.stringify({
    clean_up_tokenization_spaces: true,
    cls_token: '[CLS]',
    do_lower_case: true,
    mask_token: '[MASK]',
    model_max_length: 512,
    pad_token: '[PAD]',
    sep_token: '[SEP]',
    strip_accents: null,
    tokenize_chinese_chars: true,
    tokenizer_class: 'BertTokenizer',
    unk_token: '[UNK]',
  });
}

/** The three files by repository path, as a hub would serve them. */
export function tinyModelFiles(options: { tokenTypeIds?: boolean } = {}): Map<string, Uint8Array> {
  return new Map<string, Uint8Array>([
    [TINY_PATHS.model, tinyOnnxModel(options)],
    [TINY_PATHS.tokenizer, Buffer.from(tinyTokenizerJson())],
    [TINY_PATHS.tokenizerConfig, Buffer.from(tinyTokenizerConfig())],
  ]);
}

/** Lowercase hex SHA-256, as a model spec pins it. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A model spec for `files`, pinned to their digests, mean-pooled and normalised; `overrides` change the rest. */
export function tinyModelSpec(files: Map<string, Uint8Array>, overrides: Partial<LocalModelSpec> = {}): LocalModelSpec {
  const file = (path: string): { path: string; sha256: string; bytes: number } => {
    const bytes = files.get(path);
    if (bytes === undefined) throw new Error(`tinyModelSpec: no ${path}`);
    return { path, sha256: sha256Hex(bytes), bytes: bytes.byteLength };
  };
  return {
    name: 'tiny-test-model',
    repo: 'memoryd-test/tiny-model',
    revision: '0123456789abcdef0123456789abcdef01234567',
    files: { model: file(TINY_PATHS.model), tokenizer: file(TINY_PATHS.tokenizer), tokenizerConfig: file(TINY_PATHS.tokenizerConfig) },
    dimensions: TINY_DIMENSIONS,
    pooling: 'mean',
    normalize: true,
    queryPrefix: '',
    documentPrefix: '',
    maxTokens: 64,
    ...overrides,
  };
}

// --- ONNX protobuf -------------------------------------------------------

/** onnx.TensorProto.DataType */
const DataType = { FLOAT: 1, INT64: 7 } as const;
/** onnx.AttributeProto.AttributeType */
const AttributeType = { INT: 2 } as const;

/** A protobuf message being written: fields appended in order. */
class Proto {
  readonly #parts: Uint8Array[] = [];

  varint(field: number, value: number | bigint): this {
    this.#key(field, 0);
    this.#parts.push(varint(BigInt(value)));
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.#key(field, 2);
    this.#parts.push(varint(BigInt(value.byteLength)), value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, Buffer.from(value, 'utf8'));
  }

  message(field: number, value: Proto): this {
    return this.bytes(field, value.finish());
  }

  finish(): Uint8Array {
    return Buffer.concat(this.#parts);
  }

  #key(field: number, wireType: number): void {
    this.#parts.push(varint(BigInt((field << 3) | wireType)));
  }
}

/** Base-128 varint; negative values as 64-bit two's complement, as protobuf's int64 does. */
function varint(value: bigint): Uint8Array {
  let v = BigInt.asUintN(64, value);
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return Uint8Array.from(out);
}

/** TensorProto: dims = 1, data_type = 2, name = 8, raw_data = 9 (little-endian). */
function floatTensor(name: string, dims: readonly number[], values: readonly number[]): Proto {
  const raw = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => raw.writeFloatLE(v, i * 4));
  return tensor(name, dims, DataType.FLOAT, raw);
}

function int64Tensor(name: string, dims: readonly number[], values: readonly number[]): Proto {
  const raw = Buffer.alloc(values.length * 8);
  values.forEach((v, i) => raw.writeBigInt64LE(BigInt(v), i * 8));
  return tensor(name, dims, DataType.INT64, raw);
}

function tensor(name: string, dims: readonly number[], type: number, raw: Uint8Array): Proto {
  const t = new Proto();
  for (const d of dims) t.varint(1, d);
  return t.varint(2, type).string(8, name).bytes(9, raw);
}

/** NodeProto: input = 1, output = 2, name = 3, op_type = 4, attribute = 5. */
function node(opType: string, inputs: readonly string[], outputs: readonly string[], attributes: readonly Proto[] = []): Proto {
  const n = new Proto();
  for (const i of inputs) n.string(1, i);
  for (const o of outputs) n.string(2, o);
  n.string(3, `${opType}_${outputs[0] ?? ''}`).string(4, opType);
  for (const a of attributes) n.message(5, a);
  return n;
}

/** AttributeProto: name = 1, i = 3, type = 20. */
function intAttribute(name: string, value: number): Proto {
  return new Proto().string(1, name).varint(3, value).varint(20, AttributeType.INT);
}

/**
 * ValueInfoProto { name = 1, type = 2 }, TypeProto { tensor_type = 1 },
 * TypeProto.Tensor { elem_type = 1, shape = 2 }, TensorShapeProto { dim = 1 },
 * Dimension { dim_value = 1, dim_param = 2 }.
 */
function valueInfo(name: string, elemType: number, dims: readonly (string | number)[]): Proto {
  const shape = new Proto();
  for (const d of dims) shape.message(1, typeof d === 'number' ? new Proto().varint(1, d) : new Proto().string(2, d));
  const tensorType = new Proto().varint(1, elemType).message(2, shape);
  return new Proto().string(1, name).message(2, new Proto().message(1, tensorType));
}
