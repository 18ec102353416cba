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
  // Contractions: one word to Intl.Segmenter, so listed whole (`what's`
  // and other `<stop word>'s` are handled in analyze.ts).
  "aren't", "can't", "couldn't", "didn't", "doesn't", "don't", "hadn't", "hasn't", "haven't",
  "isn't", "shouldn't", "wasn't", "weren't", "won't", "wouldn't",
  "i'd", "i'll", "i'm", "i've", "we're", "we've", "you're", "you've", "they're", "they've",
]);

/** Whether a folded word (see analyze.ts `foldText`) is an English stop word. */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}
