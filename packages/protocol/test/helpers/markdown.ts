// Just enough Markdown reading for docs-drift.test.ts: ATX headings as a
// tree, and pipe tables. docs/protocol.md is written to this shape on
// purpose, so that the test can hold it to the schemas.

/** A heading with the lines under it (up to the next heading) and its sub-headings. */
export interface Section {
  level: number;
  title: string;
  /** Lines directly under the heading, before any sub-heading. */
  body: string[];
  children: Section[];
}

/** Parses headings (`#` to `######`) into a tree; fenced code is body text. */
export function parseSections(markdown: string): Section {
  const root: Section = { level: 0, title: '', body: [], children: [] };
  const stack: Section[] = [root];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^(#{1,6}) (.+?)\s*$/.exec(line);
    if (heading === null) {
      stack[stack.length - 1]!.body.push(line);
      continue;
    }
    const section: Section = { level: heading[1]!.length, title: heading[2]!, body: [], children: [] };
    while (stack[stack.length - 1]!.level >= section.level) stack.pop();
    stack[stack.length - 1]!.children.push(section);
    stack.push(section);
  }
  return root;
}

/** Every section of the tree, depth first. */
export function allSections(section: Section): Section[] {
  return [section, ...section.children.flatMap(allSections)];
}

/** The whole text of a section, sub-sections included. */
export function sectionText(section: Section): string {
  return [`${'#'.repeat(section.level)} ${section.title}`, ...section.body, ...section.children.map(sectionText)].join('\n');
}

/** A pipe table: its header cells and its rows of cells. */
export interface Table {
  header: string[];
  rows: string[][];
}

/** Splits a table row on unescaped pipes; `\|` becomes `|` inside a cell. */
function cells(line: string): string[] {
  const parts = line.trim().replace(/^\|/, '').replace(/\|$/, '').split(/(?<!\\)\|/);
  return parts.map((p) => p.trim().replace(/\\\|/g, '|'));
}

/** The tables among `lines` (runs of lines starting with `|`). */
export function tables(lines: readonly string[]): Table[] {
  const found: Table[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length >= 2) {
      const [head, , ...rest] = run;
      found.push({ header: cells(head!), rows: rest.map(cells) });
    }
    run = [];
  };
  for (const line of lines) {
    if (line.trim().startsWith('|')) run.push(line);
    else flush();
  }
  flush();
  return found;
}

/** `name` when the cell is exactly one backticked token, else undefined. */
export function codeName(cell: string): string | undefined {
  return /^`([^`]+)`$/.exec(cell)?.[1];
}
