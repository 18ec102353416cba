// How times, counts and lists read on the page.

/** A time as the reader's clock says it: 2026-12-07 19:08:15. */
export function when(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** A duration in the largest two units: 3 d 4 h, 5 min 2 s. */
export function duration(ms: number): string {
  const units: Array<[string, number]> = [['d', 86_400_000], ['h', 3_600_000], ['min', 60_000], ['s', 1000]];
  const parts: string[] = [];
  let rest = ms;
  for (const [name, size] of units) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 || parts.length > 0) parts.push(`${n} ${name}`);
    if (parts.length === 2) break;
  }
  return parts.length === 0 ? 'under a second' : parts.join(' ');
}

/** `n thing` or `n things` (or `plural`), with thousands grouped. */
export function count(n: number, thing: string, plural = `${thing}s`): string {
  return `${n.toLocaleString('en')} ${n === 1 ? thing : plural}`;
}

/** Tags typed as `a, b, c`: trimmed, empty ones dropped. */
export function tagsOf(text: string): string[] {
  return text.split(',').map((t) => t.trim()).filter((t) => t !== '');
}

/**
 * Local midnight of `date` as RFC 3339 with the local offset (four-digit
 * years, as the daemon reads them; toISOString would write +010000), or
 * undefined for a date that is none or lies outside years 0000-9999.
 */
function localMidnight(date: Date): string | undefined {
  if (Number.isNaN(date.getTime()) || date.getFullYear() < 0 || date.getFullYear() > 9999) return undefined;
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const offset = -date.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${p(date.getFullYear(), 4)}-${p(date.getMonth() + 1)}-${p(date.getDate())}T00:00:00${sign}${p(Math.floor(abs / 60))}:${p(abs % 60)}`;
}

/** The start of a local day (`YYYY-MM-DD` from a date input) as RFC 3339, or undefined for none or no real day. */
export function dayStart(day: string): string | undefined {
  return day === '' ? undefined : localMidnight(new Date(`${day}T00:00:00`));
}

/** The end of a local day (`until` is exclusive: the next day's start) as RFC 3339, or undefined for none, no real day, or after 9999. */
export function dayEnd(day: string): string | undefined {
  if (day === '') return undefined;
  const next = new Date(`${day}T00:00:00`);
  next.setDate(next.getDate() + 1);
  return localMidnight(next);
}
