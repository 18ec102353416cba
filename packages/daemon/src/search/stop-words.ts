// English stop words: Lucene's classic English list plus common pronouns,
// auxiliaries and question words. Kept short on purpose: a word here can
// never narrow a search that also has other words.
const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'about', 'am', 'an', 'and', 'any', 'are', 'as', 'at',
  'be', 'been', 'being', 'but', 'by',
  'can', 'could',
  'did', 'do', 'does',
  'for', 'from',
  'had', 'has', 'have', 'he', 'her', 'him', 'his', 'how',
  'i', 'if', 'in', 'into', 'is', 'it', 'its',
  'me', 'my',
  'no', 'not',
  'of', 'on', 'or', 'our',
  'she', 'should', 'so', 'such',
  'than', 'that', 'the', 'their', 'them', 'then', 'there', 'these', 'they', 'this', 'those', 'to', 'too',
  'us',
  'very',
  'was', 'we', 'were', 'what', 'when', 'where', 'which', 'who', 'whom', 'why', 'will', 'with', 'would',
  'you', 'your',
]);

/** Whether a (lower-cased) word is an English stop word. */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}
