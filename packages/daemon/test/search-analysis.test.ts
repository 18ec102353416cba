// Text analysis for memory.search (issue 4 item 2, docs/search.md "Text
// analysis"): each test pins one rule with a case the old tokenizer (NFKC,
// lower case, runs of letters/digits/marks, no stemming, no prefixes)
// got wrong. A trailing space in a query marks the last word as finished,
// so those assertions test exact matching, not prefix matching.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MemoryStore } from '@memoryd/daemon';
import { openTempStore, useStoreCleanup } from './helpers/store.js';

useStoreCleanup();

type FactInput = string | { content: string; tags: string[] };

/** A fresh store whose agent `s` holds these facts, added in order. */
async function withFacts(facts: FactInput[]): Promise<MemoryStore> {
  const { store } = await openTempStore();
  for (const f of facts) {
    const p = typeof f === 'string' ? { content: f } : f;
    const added = await store.addFact({ agentId: 's', ...p });
    assert.equal(added.duplicate, undefined);
  }
  return store;
}

async function contents(store: MemoryStore, query: string): Promise<string[]> {
  const { facts } = await store.searchFacts({ agentId: 's', query, limit: 100 });
  return facts.map((f) => f.content);
}

async function sorted(store: MemoryStore, query: string): Promise<string[]> {
  return (await contents(store, query)).sort();
}

describe('search text analysis', () => {
  // Rule: English stemming, for facts and queries alike.
  test('inflection: deploying finds deploy, users finds user, and back', async () => {
    const store = await withFacts(['Deploying to staging', 'The user table', 'lunch at noon']);
    assert.deepEqual(await contents(store, 'deploy '), ['Deploying to staging']);
    assert.deepEqual(await contents(store, 'deployed '), ['Deploying to staging']);
    assert.deepEqual(await contents(store, 'users '), ['The user table']);
  });

  // Rule: case folding beyond toLowerCase (ß folds to ss).
  test('case: Straße and STRASSE are one word', async () => {
    const store = await withFacts(['Straße closed today', 'STRASSE reopened', 'a road']);
    assert.deepEqual(await sorted(store, 'strasse '), ['STRASSE reopened', 'Straße closed today']);
    assert.deepEqual(await sorted(store, 'STRAẞE '), ['STRASSE reopened', 'Straße closed today']);
  });

  // Rule: diacritic folding, both directions.
  test('diacritics: café finds cafe and résumé finds resume', async () => {
    const store = await withFacts(['Meet at the café', 'resume template', 'cafeteria menu']);
    assert.deepEqual(await contents(store, 'cafe '), ['Meet at the café']);
    assert.deepEqual(await contents(store, 'résumé '), ['resume template']);
    assert.deepEqual(await contents(store, 'RÉSUMÉ '), ['resume template']);
  });

  // Rule: NFKC before everything else (full-width, ligatures), so the later
  // rules (stemming, diacritics, identifiers) apply to compatibility forms.
  test('NFKC: full-width and ligature forms are analysed like plain text', async () => {
    const store = await withFacts(['Ｄｅｐｌｏｙｉｎｇ on Fridays', 'ﬁancé visit', 'release ｖ２．３ shipped', 'v2 has 3 bugs']);
    assert.deepEqual(await contents(store, 'deploy '), ['Ｄｅｐｌｏｙｉｎｇ on Fridays']);
    assert.deepEqual(await contents(store, 'fiance '), ['ﬁancé visit']);
    assert.deepEqual(await contents(store, 'v2.3 '), ['release ｖ２．３ shipped']);
  });

  // Rule: versions kept whole (and found by their parts).
  test('identifiers: versions like v2.3', async () => {
    const store = await withFacts(['shipped v2.3 today', 'v2 had 3 bugs']);
    assert.deepEqual(await contents(store, 'v2.3 '), ['shipped v2.3 today']);
    assert.deepEqual(await sorted(store, 'v2 '), ['shipped v2.3 today', 'v2 had 3 bugs']);
  });

  // Rule: numbers kept whole, and not split into parts.
  test('identifiers: numbers like 3.14 are one value', async () => {
    const store = await withFacts(['pi is about 3.14', '3 apples and 14 pears']);
    assert.deepEqual(await contents(store, '3.14 '), ['pi is about 3.14']);
    assert.deepEqual(await contents(store, '14 '), ['3 apples and 14 pears']);
  });

  // Rule: snake_case kept whole, found by its parts, never stemmed.
  test('identifiers: snake_case', async () => {
    const store = await withFacts(['rename snake_case columns', 'a snake in the case', 'drop users_table now']);
    assert.deepEqual(await contents(store, 'snake_case '), ['rename snake_case columns']);
    assert.deepEqual(await sorted(store, 'snake '), ['a snake in the case', 'rename snake_case columns']);
    assert.deepEqual(await contents(store, 'users_table '), ['drop users_table now']);
    assert.deepEqual(await contents(store, 'user_table '), [], 'an identifier is not stemmed');
  });

  // Rule: kebab-case kept whole and found by its parts.
  test('identifiers: kebab-case', async () => {
    const store = await withFacts(['use kebab-case names', 'kebab shop, just in case']);
    assert.deepEqual(await contents(store, 'kebab-case '), ['use kebab-case names']);
    assert.deepEqual(await sorted(store, 'kebab '), ['kebab shop, just in case', 'use kebab-case names']);
  });

  // Rule: e-mail addresses kept whole, found by their domain and parts.
  test('identifiers: user@example.com and example.com', async () => {
    const store = await withFacts(['email is user@example.com', 'the user opened example.com', 'example of a com port']);
    assert.deepEqual(await contents(store, 'user@example.com '), ['email is user@example.com']);
    assert.deepEqual(await sorted(store, 'example.com '), ['email is user@example.com', 'the user opened example.com']);
  });

  // Rule: dotted names kept whole.
  test('identifiers: foo.bar() dotted names', async () => {
    const store = await withFacts(['call foo.bar() first', 'foo and bar']);
    assert.deepEqual(await contents(store, 'foo.bar() '), ['call foo.bar() first']);
    assert.deepEqual(await contents(store, 'foo.bar '), ['call foo.bar() first']);
  });

  // Rule: a sigil (#, $, @) starting a word belongs to it.
  test('identifiers: #123, $HOME and @alice', async () => {
    const store = await withFacts(['fixed in #123', '123 tests pass', 'config in $HOME/.config', 'home page', 'ask @alice', 'alice knows']);
    assert.deepEqual(await contents(store, '#123 '), ['fixed in #123']);
    assert.deepEqual(await sorted(store, '123 '), ['123 tests pass', 'fixed in #123']);
    assert.deepEqual(await contents(store, '$HOME '), ['config in $HOME/.config']);
    assert.deepEqual(await sorted(store, 'home '), ['config in $HOME/.config', 'home page']);
    assert.deepEqual(await contents(store, '@alice '), ['ask @alice']);
  });

  // Rule: the last query word, when a `*` follows it and ends the query,
  // also matches fact words it begins (min 2 characters), a little below
  // an exact match; earlier words never do, and without the `*` every word
  // is whole.
  test('prefix matching of the last query word, only when asked with *', async () => {
    const store = await withFacts(['post office hours', 'postgres office hours', 'kitchen notes', 'cat food', 'catalog of parts']);
    assert.deepEqual(await contents(store, 'postg*'), ['postgres office hours']);
    assert.deepEqual(await contents(store, 'postg'), [], 'no * : a whole word');
    assert.deepEqual(await contents(store, 'cat'), ['cat food'], 'no * : cat does not find catalog');
    assert.deepEqual(await sorted(store, 'cat*'), ['cat food', 'catalog of parts']);
    const { facts } = await store.searchFacts({ agentId: 's', query: 'post*' });
    assert.deepEqual(facts.map((f) => f.content), ['post office hours', 'postgres office hours']);
    const [exact, prefix] = facts.map((f) => f.score!);
    assert.ok(prefix! < exact! && prefix! > exact! / 2, `prefix ${prefix} a little below exact ${exact}`);
    assert.deepEqual(await contents(store, 'postg*  '), ['postgres office hours'], 'white space after the * is fine');
    assert.deepEqual(await contents(store, 'postg *'), [], 'a * apart from the word asks nothing');
    assert.deepEqual(await contents(store, 'postg* kitchen'), ['kitchen notes'], 'not an earlier word');
    assert.deepEqual(await sorted(store, 'kitchen postg*'), ['kitchen notes', 'postgres office hours']);
    assert.deepEqual(await contents(store, 'p*'), [], 'one character is too short');
    assert.deepEqual(await contents(store, 'kitch*'), ['kitchen notes']);
    assert.deepEqual(await contents(store, 'kitch**'), [], 'only one * is taken');
  });

  // Rule: stop words never drown the rare words: dropped beside other
  // words (contractions and `what's` included), not used as a prefix.
  test("stop words: what's the weather does not find the user's settings", async () => {
    const store = await withFacts(["the user's settings", 'weather report for tuesday', 'theory notes']);
    assert.deepEqual(await contents(store, "what's the weather"), ['weather report for tuesday']);
    assert.deepEqual(await contents(store, 'what’s the weather'), ['weather report for tuesday']);
    assert.deepEqual(await contents(store, 'user settings '), ["the user's settings"]);
    assert.deepEqual(await contents(store, 'notes the'), ['theory notes'], 'a dropped stop word is no prefix');
  });

  // Rule: tags analysed like text and weighted above it.
  test('tags: analysed like text and weighted above it', async () => {
    const store = await withFacts(['deploy checklist for friday', { content: 'friday checklist', tags: ['Deploying'] }]);
    assert.deepEqual(await contents(store, 'deploy '), ['friday checklist', 'deploy checklist for friday']);
    // `deployi*` completes to the tag word `deploying`, whose term `deploy`
    // the first fact holds too; the tag weighs twice.
    assert.deepEqual(
      await contents(store, 'deployi*'),
      ['friday checklist', 'deploy checklist for friday'],
      'prefix matches tags too, and completes to whole terms',
    );
  });

  // Rule: Unicode word segmentation (Intl.Segmenter) for scripts without
  // spaces; diacritic folding leaves other scripts' marks alone.
  test('non-Latin scripts: Japanese words without spaces, Hindi vowel signs kept', async () => {
    const store = await withFacts(['東京に住んでいます', 'मैं दिल्ली में रहता हूँ']);
    assert.deepEqual(await contents(store, '東京 '), ['東京に住んでいます']);
    assert.deepEqual(await contents(store, '大阪 '), []);
    assert.deepEqual(await contents(store, 'दिल्ली '), ['मैं दिल्ली में रहता हूँ']);
    assert.deepEqual(await contents(store, 'दलल '), [], 'vowel signs are part of the word');
  });
});
