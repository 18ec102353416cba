// Markdown as the doc tests read it: fenced blocks (with their info
// string's words) and tables outside them. Enough for our docs: no
// nesting of fences, no HTML blocks but the comment that marks a table.

/** A fenced block: its info string's words, first content line (1-based) and lines. */
export interface Fence {
  info: string[];
  line: number;
  lines: string[];
}

/** A Markdown table outside code blocks: the line before it, its first line, and its rows of cells. */
export interface Table {
  before: string;
  line: number;
  header: string[];
  rows: { line: number; cells: string[] }[];
}

const FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/;

/** Splits a Markdown document into its fenced blocks and its tables. */
export function scan(text: string): { fences: Fence[]; tables: Table[] } {
  const lines = text.split('\n');
  const fences: Fence[] = [];
  const tables: Table[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (open) {
      const [, indent, marks, info] = open as unknown as [string, string, string, string];
      const fence: Fence = { info: info.trim().split(/\s+/).filter((w) => w !== ''), line: i + 2, lines: [] };
      for (i++; i < lines.length; i++) {
        const l = lines[i]!;
        if (l.trim().startsWith(marks) && l.trim().replace(/[`~]/g, '') === '') break;
        fence.lines.push(l.startsWith(indent) ? l.slice(indent.length) : l.trimStart());
      }
      fences.push(fence);
      continue;
    }
    if (lines[i]!.trim().startsWith('|') && /^\s*\|?\s*:?-{3,}/.test(lines[i + 1] ?? '')) {
      let b = i - 1;
      while (b >= 0 && lines[b]!.trim() === '') b--;
      const table: Table = { before: b >= 0 ? lines[b]!.trim() : '', line: i + 1, header: cells(lines[i]!), rows: [] };
      for (i += 2; i < lines.length && lines[i]!.trim().startsWith('|'); i++) table.rows.push({ line: i + 1, cells: cells(lines[i]!) });
      i--;
      tables.push(table);
    }
  }
  return { fences, tables };
}

/** A table row's cells, trimmed (`\|` stays in its cell). */
function cells(row: string): string[] {
  const parts = row.trim().replace(/^\|/, '').replace(/\|$/, '').split(/(?<!\\)\|/);
  return parts.map((c) => c.trim());
}
