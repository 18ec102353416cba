import Table from 'cli-table3';

/** Borderless columns, as `docker ps` and `systemctl list-units` print them. */
const CHARS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ',
};

/** A table with a header row, columns padded, no borders, no colours. */
export function table(head: string[], rows: Array<Array<string | number>>): string {
  const t = new Table({ head, chars: CHARS, style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 } });
  for (const row of rows) t.push(row.map(String));
  return t.toString().replace(/[ \t]+$/gm, '');
}

/** Label and value pairs, one a line, values aligned. */
export function pairs(rows: Array<[string, string | number]>): string {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${`${label}:`.padEnd(width + 2)}${value}`).join('\n');
}

/** One JSON document, as `--json` prints it. */
export function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** Text on one line of a table: line breaks and tabs become spaces. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/** A fact's tags in a table cell: comma-separated, or - when it has none. */
export function tagsCell(tags: readonly string[] | undefined): string {
  return tags === undefined || tags.length === 0 ? '-' : oneLine(tags.join(','));
}

/** `1 record`, `0 records`, `2 records`: a count with its noun in the right number. */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
