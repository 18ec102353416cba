// What the client of search-crash.test.ts knows about the facts it wrote:
// every text it ever sent (a "version"), each with a marker word no other
// text holds, and whether the daemon acknowledged it as current, as
// removed, or had not answered when it was killed ("either").

/**
 * The words every fact text draws from, so postings and the per-agent
 * statistics overlap heavily. None is an English stop word, a prefix of
 * another (the last query word also matches as a prefix) or of a marker.
 */
export const VOCABULARY = [
  'amber', 'basalt', 'cobalt', 'dune', 'ember', 'fjord', 'garnet', 'harbor',
  'indigo', 'juniper', 'kelp', 'lagoon', 'meadow', 'nectar', 'orchid', 'pebble',
] as const;

/** Tags some adds carry: disjoint from {@link VOCABULARY}, prefix-free too. */
export const TAG_WORDS = ['quartz', 'saffron', 'tundra', 'violet'] as const;

/** A marker: `zq`, four base-36 digits, `x`; all one length, so none is a prefix of another. */
export const MARKER = /\bzq[0-9a-z]{4}x\b/g;

/** Every marker in a text (a fact text of ours holds exactly one). */
export function markersIn(text: string): string[] {
  return text.match(MARKER) ?? [];
}

/** The lower-cased words of a text, for deciding which facts a vocabulary word must find. */
export function wordsOf(text: string): Set<string> {
  return new Set(text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w !== ''));
}


/**
 * What is known of one text: `current` and `removed` come from an
 * acknowledged response (or a listing after a restart), `either` from a
 * request the kill left unanswered.
 */
export type Fate = 'current' | 'removed' | 'either';

/** One text sent to the daemon, by add or by update. */
export interface Version {
  agentId: string;
  marker: string;
  content: string;
  tags?: string[];
  /** Known once an add or update is acknowledged, or once a listing shows it. */
  factId?: string;
  fate: Fate;
  /**
   * For an unanswered update: the version it supersedes. The update is one
   * atomic write, so after a restart exactly one of the two is current.
   */
  replaces?: Version;
}

/** Every version written to one data dir, across daemons and rounds. */
export class CrashModel {
  /** All versions, in the order their requests were sent. */
  readonly versions: Version[] = [];
  private readonly byMarker = new Map<string, Version>();
  private counter = 0;

  /** A new version with a fresh marker and a text of 4–6 vocabulary words around it. */
  newVersion(agentId: string, rand: () => number, withTags: boolean): Version {
    const marker = `zq${(this.counter++).toString(36).padStart(4, '0')}x`;
    const words: string[] = [];
    const n = 4 + Math.floor(rand() * 3);
    while (words.length < n) {
      const w = VOCABULARY[Math.floor(rand() * VOCABULARY.length)]!;
      if (!words.includes(w)) words.push(w);
    }
    // The marker at a random place, and a stop word now and then: the
    // text reads like prose and the marker is not always the last word.
    words.splice(Math.floor(rand() * (words.length + 1)), 0, marker);
    if (rand() < 0.5) words.splice(1 + Math.floor(rand() * (words.length - 1)), 0, 'and the');
    const content = `${words.join(' ')}${rand() < 0.5 ? '.' : ''}`;
    const v: Version = { agentId, marker, content, fate: 'either' };
    if (withTags) {
      const tags = TAG_WORDS.filter(() => rand() < 0.5);
      if (tags.length > 0) v.tags = tags;
    }
    this.versions.push(v);
    this.byMarker.set(marker, v);
    return v;
  }

  /** The version holding this marker, if we ever sent it. */
  find(marker: string): Version | undefined {
    return this.byMarker.get(marker);
  }

  /** The agents written to. */
  agents(): string[] {
    return [...new Set(this.versions.map((v) => v.agentId))].sort();
  }

  /** Counts of versions by fate, for the test's diagnostics. */
  tally(): Record<Fate, number> {
    const t: Record<Fate, number> = { current: 0, removed: 0, either: 0 };
    for (const v of this.versions) t[v.fate]++;
    return t;
  }
}
