import { UsageError } from '@memoryd/client/args';
import { timeBoundMs } from '@memoryd/protocol';

/** What a relative amount counts in, in milliseconds. */
const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** Local midnight `daysBack` days before `now`'s day. */
function midnight(now: Date, daysBack: number): Date {
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() - daysBack);
}

/**
 * The instant a `--since` or `--until` names, as the RFC 3339 text the
 * daemon takes: an RFC 3339 time as given; a date (`2026-12-01`, the
 * local midnight that starts it); `now`, `today` and `yesterday` (today's
 * and yesterday's local midnight); or an amount ago: `30m`, `12h`, `7d`,
 * `2w` (minutes, hours, days, weeks before `now`).
 */
export function timeWord(text: string, option: string, now = new Date()): string {
  if (timeBoundMs(text) !== undefined) return text;
  const word = text.trim().toLowerCase();
  if (word === 'now') return now.toISOString();
  if (word === 'today') return midnight(now, 0).toISOString();
  if (word === 'yesterday') return midnight(now, 1).toISOString();
  const ago = /^(\d{1,6})([mhdw])$/.exec(word);
  if (ago !== null) return new Date(now.getTime() - Number(ago[1]) * UNITS[ago[2]!]!).toISOString();
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(word);
  if (date !== null) {
    const [y, m, d] = [Number(date[1]), Number(date[2]), Number(date[3])];
    const at = new Date(y, m - 1, d);
    if (at.getFullYear() === y && at.getMonth() === m - 1 && at.getDate() === d) return at.toISOString();
  }
  throw new UsageError(
    `${option} must be an RFC 3339 time (2026-12-01T09:00:00Z), a date (2026-12-01), now, today, yesterday, or an amount ago (30m, 12h, 7d, 2w); got ${JSON.stringify(text)}`,
  );
}

/** The filter options of search and list, as the parser declares them. */
export const FILTER_OPTIONS = {
  tag: { type: 'string', multiple: true },
  since: { type: 'string' },
  until: { type: 'string' },
} as const;

/** The filter params the options ask for (none when none is given). */
export function filterParams(values: Record<string, unknown>, now = new Date()): { tags?: string[]; since?: string; until?: string } {
  const tags = values['tag'] as string[] | undefined;
  const since = values['since'] as string | undefined;
  const until = values['until'] as string | undefined;
  return {
    ...(tags === undefined ? {} : { tags }),
    ...(since === undefined ? {} : { since: timeWord(since, '--since', now) }),
    ...(until === undefined ? {} : { until: timeWord(until, '--until', now) }),
  };
}

/** The help lines of the filter options. */
export const FILTER_HELP = `  --tag T     only facts tagged T (repeatable: every one; case and spacing
              do not count)
  --since W   only facts written at or after W
  --until W   only facts written before W
              W: an RFC 3339 time (2026-12-01T09:00:00Z), a date (2026-12-01,
              from local midnight), now, today, yesterday, or an amount ago:
              30m, 12h, 7d, 2w`;
