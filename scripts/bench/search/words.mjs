// The word stock of the bench corpus: English stop words, common words of
// the facts agents keep (with inflected forms, so stemming has work to do),
// sentence openers, tags, and a generator of pseudo-words for the long tail
// of a real vocabulary (names, project words, jargon).

import { mulberry32 } from './random.mjs';

/**
 * Stop words the generator mixes in. Queries leave them out: an agent
 * searches for what a fact is about, and search ignores stop words in a
 * query that has other words anyway (docs/protocol.md "memory.search").
 */
export const STOP_WORDS = [
  'the', 'a', 'an', 'and', 'or', 'but', 'of', 'to', 'in', 'on', 'at', 'for', 'with', 'from', 'by', 'is', 'are',
  'was', 'were', 'be', 'been', 'it', 'its', 'this', 'that', 'these', 'they', 'them', 'their', 'we', 'our', 'you',
  'your', 'he', 'she', 'his', 'her', 'not', 'no', 'so', 'if', 'then', 'when', 'where', 'which', 'who', 'what',
  'should', 'would', 'can', 'could', 'will', 'has', 'have', 'had', 'do', 'does', 'did', 'into', 'than', 'too',
  'very', 'about', 'as', 'there',
];

/** Lower-case set of {@link STOP_WORDS}, for filtering query words. */
export const STOP_WORD_SET = new Set(STOP_WORDS);

/**
 * Common words of facts about users, projects and code, several in more
 * than one inflection (deploy, deploys, deployed, deploying) so that the
 * daemon's stemmer merges them as it would in real text.
 */
export const COMMON_WORDS = [
  'user', 'users', 'prefers', 'preferred', 'preference', 'wants', 'likes', 'dislikes', 'avoids', 'uses', 'using',
  'project', 'projects', 'repository', 'repo', 'service', 'services', 'server', 'client', 'database', 'databases',
  'deploy', 'deploys', 'deployed', 'deploying', 'deployment', 'release', 'released', 'releases', 'build', 'builds',
  'building', 'test', 'tests', 'testing', 'failing', 'failed', 'passes', 'fix', 'fixed', 'fixes', 'bug', 'bugs',
  'migration', 'migrations', 'migrate', 'config', 'configuration', 'configured', 'setting', 'settings', 'staging',
  'production', 'api', 'endpoint', 'endpoints', 'request', 'requests', 'review', 'reviews', 'reviewed', 'meeting',
  'meetings', 'timezone', 'editor', 'theme', 'dark', 'light', 'language', 'framework', 'library', 'libraries',
  'dependency', 'dependencies', 'upgrade', 'upgraded', 'cache', 'cached', 'latency', 'cluster', 'pipeline', 'lint',
  'format', 'formatting', 'branch', 'branches', 'merge', 'merged', 'rebase', 'commit', 'commits', 'schema', 'query',
  'queries', 'index', 'indexes', 'backup', 'backups', 'team', 'manager', 'customer', 'customers', 'invoice',
  'budget', 'deadline', 'deadlines', 'sprint', 'ticket', 'tickets', 'issue', 'issues', 'incident', 'incidents',
  'alert', 'alerts', 'dashboard', 'metrics', 'logs', 'logging', 'token', 'tokens', 'secret', 'secrets', 'module',
  'modules', 'function', 'functions', 'class', 'method', 'methods', 'file', 'files', 'folder', 'script', 'scripts',
  'weekly', 'daily', 'monday', 'friday', 'morning', 'evening', 'always', 'never', 'usually', 'sometimes', 'prefer',
  'concise', 'detailed', 'answers', 'examples', 'code', 'tabs', 'spaces', 'typescript', 'python', 'rust', 'golang',
  'postgres', 'redis', 'docker', 'kubernetes', 'terraform', 'nginx', 'linux', 'macos', 'windows', 'vim', 'emacs',
  'coffee', 'tea', 'lunch', 'birthday', 'vacation', 'travel', 'flight', 'hotel', 'family', 'partner', 'doctor',
  'appointment', 'allergic', 'allergy', 'vegetarian', 'running', 'ran', 'runs', 'slow', 'slower', 'fast', 'faster',
  'timeout', 'timeouts', 'retry', 'retries', 'retried', 'owner', 'owns', 'maintains', 'maintainer', 'decided',
  'decision', 'decisions', 'agreed', 'plan', 'planned', 'planning', 'roadmap', 'estimate', 'estimated', 'priority',
];

/** Sentence openers: how agents phrase what they keep. */
export const OPENERS = [
  'The user', 'User', 'The team', 'Remember that', 'Note:', 'Decision:', 'Known issue:', 'Preference:',
  'The customer', 'Our project', 'The maintainer', 'In this repo', 'Heads up:', 'Todo:', 'The manager said',
];

/** Tags drawn for the facts that have some. */
export const TAG_WORDS = [
  'preference', 'decision', 'people', 'deadline', 'release', 'environment', 'infra', 'frontend', 'backend',
  'database', 'security', 'health', 'travel', 'billing', 'oncall', 'todo', 'bug', 'meeting', 'style', 'api',
];

const ONSETS = ['b', 'br', 'c', 'ch', 'd', 'dr', 'f', 'fl', 'g', 'gr', 'h', 'j', 'k', 'kl', 'l', 'm', 'n', 'p',
  'pl', 'qu', 'r', 's', 'sh', 'st', 't', 'tr', 'v', 'w', 'z', 'sk'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'ou', 'y', 'io'];
const CODAS = ['', '', '', 'n', 'r', 's', 'l', 'x', 'th', 'ck', 'm', 'nd', 'rt'];

/**
 * `count` distinct pseudo-words of 2–4 syllables (`brailox`, `quenda`),
 * none of them a stop word or common word. They stand for the names,
 * product words and jargon that make up most of a real vocabulary.
 * @param {number} count
 * @param {number} seed
 * @returns {string[]}
 */
export function pseudoWords(count, seed) {
  const rand = mulberry32(seed);
  const taken = new Set([...STOP_WORDS, ...COMMON_WORDS]);
  const words = [];
  const part = (list) => list[Math.floor(rand() * list.length)];
  // 30 × 10 × 13 syllables give far more than 2-syllable words alone need;
  // the bound only guards against a bad edit to the lists above.
  for (let tries = 0; words.length < count; tries++) {
    if (tries > count * 20) throw new Error(`could not make ${count} distinct pseudo-words`);
    const syllables = 2 + Math.floor(rand() * rand() * 3);
    let word = '';
    for (let s = 0; s < syllables; s++) word += part(ONSETS) + part(VOWELS) + (s === syllables - 1 ? part(CODAS) : '');
    if (word.length < 4 || taken.has(word)) continue;
    taken.add(word);
    words.push(word);
  }
  return words;
}
