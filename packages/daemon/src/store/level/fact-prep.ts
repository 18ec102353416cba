import { type DocTerms, docTerms } from '../../search/doc-terms.js';
import { contentHash } from '../rules/dedupe-key.js';
import { type StoredFact, encodeFact } from './codec.js';

/**
 * A fact's analysis in a form that crosses a thread cheaply: its length,
 * then its terms and frequencies one after the other, then its words
 * with their term and frequency (DocTerms' two maps, flattened), then its
 * tag keys and its time.
 */
export type PackedDoc = [length: number, terms: Array<string | number>, surfaces: Array<string | number>, tagKeys: string[], createdAt: number];

/** What a write of a fact needs that depends on the fact alone: its stored value, and for a current one its dedup hash and analysis. */
export interface PreparedFact {
  value: string;
  hash: string | undefined;
  doc: PackedDoc | undefined;
}

/** Prepares one fact (`current`: it becomes current, so it is hashed and analysed). */
export function prepareFact(fact: StoredFact, current: boolean): PreparedFact {
  if (!current) return { value: encodeFact(fact), hash: undefined, doc: undefined };
  return { value: encodeFact(fact), hash: contentHash(fact.content), doc: packDoc(docTerms(fact)) };
}

function packDoc(doc: DocTerms): PackedDoc {
  const terms: Array<string | number> = [];
  for (const [term, f] of doc.terms) terms.push(term, f);
  const surfaces: Array<string | number> = [];
  for (const [surface, s] of doc.surfaces) surfaces.push(surface, s.term, s.frequency);
  return [doc.length, terms, surfaces, doc.tagKeys, doc.createdAt];
}

/** The analysis a {@link PackedDoc} holds, as the index takes it. */
export function unpackDoc([length, terms, surfaces, tagKeys, createdAt]: PackedDoc): DocTerms {
  const doc: DocTerms = { length, terms: new Map(), surfaces: new Map(), tagKeys, createdAt };
  for (let i = 0; i < terms.length; i += 2) doc.terms.set(terms[i] as string, terms[i + 1] as number);
  for (let i = 0; i < surfaces.length; i += 3) doc.surfaces.set(surfaces[i] as string, { term: surfaces[i + 1] as string, frequency: surfaces[i + 2] as number });
  return doc;
}
