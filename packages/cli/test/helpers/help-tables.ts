// The docs against --help: flag tables, and memoryctl's commands.
//
// Flag tables. A Markdown table whose first header is `flag` is checked
// against a --help. `<!-- doctest: every flag of BIN -->` on the line above
// it says the table lists every option BIN's --help prints (and every
// variable under its "Environment only"), none more; `<!-- doctest: flags of
// BIN -->` that each row is one of them. An unmarked flag table is read as
// `flags of memoryd`. A row's flag, its value's name and its variable must
// be the ones --help gives; a row with no flag names an "Environment only"
// variable.
//
// memoryctl's commands. The commands a doc section shows in its code blocks
// (the word after `memoryctl` and its options) must be those `memoryctl
// --help` lists under "Commands:".
import { scan } from './markdown.js';

// ---------------------------------------------------------------- --help

/** An option of a --help: `--flag`, the name of its value, its variable. */
export interface HelpFlag {
  flag: string;
  metavar?: string;
  env?: string;
}

/** What a --help lists: options, variables without a flag, commands. */
export interface Help {
  flags: HelpFlag[];
  envOnly: string[];
  commands: string[];
}

const HELP_OPTION = /^ {2}(?:-[A-Za-z], )?(--[a-z0-9][a-z0-9-]*)(?: ([A-Z][A-Z_]*))?(?: {2,}|$)/;

/**
 * Reads a --help of ours: sections start at an unindented line ending in
 * `:`, "Options…", "Environment only:", "Commands:"; an
 * option's variable is the `[MEMORYD_…]` on its lines.
 */
export function parseHelp(text: string): Help {
  const help: Help = { flags: [], envOnly: [], commands: [] };
  let section = '';
  let current: HelpFlag | undefined;
  for (const line of text.split('\n')) {
    if (/^\S.*:$/.test(line)) {
      section = line.startsWith('Options') ? 'options' : line.startsWith('Environment only') ? 'env' : line.startsWith('Commands') ? 'commands' : '';
      current = undefined;
      continue;
    }
    if (section === 'options') {
      const m = HELP_OPTION.exec(line);
      if (m) {
        current = { flag: m[1]! };
        if (m[2] !== undefined) current.metavar = m[2];
        help.flags.push(current);
      }
      const env = /\[(MEMORYD_[A-Z0-9_]+)(?:=[^\]]*)?\]/.exec(line)?.[1];
      if (env !== undefined && current !== undefined) current.env = env;
    } else if (section === 'env') {
      const m = /^ {2}(MEMORYD_[A-Z0-9_]+)\s/.exec(line);
      if (m) help.envOnly.push(m[1]!);
    } else if (section === 'commands') {
      const m = /^ {2}([a-z][a-z-]*) {2,}/.exec(line);
      if (m) help.commands.push(m[1]!);
    }
  }
  return help;
}

// ---------------------------------------------------------------- flag tables

/** A row of a flag table: its flag (absent for a variable alone), value name and variable. */
export interface FlagRow {
  line: number;
  flag?: string;
  metavar?: string;
  env?: string;
}

/** A flag table of a document and the --help it answers to. */
export interface FlagTable {
  file: string;
  line: number;
  bin: string;
  every: boolean;
  rows: FlagRow[];
}

const TABLE_MARK = /^<!--\s*doctest:\s*(every flag|flags) of ([a-z-]+)\s*-->$/;

/** The flag tables of a document (see the top of this file). */
export function flagTables(file: string, text: string): FlagTable[] {
  const tables: FlagTable[] = [];
  for (const t of scan(text).tables) {
    if (t.header[0]?.toLowerCase() !== 'flag') continue;
    const mark = TABLE_MARK.exec(t.before);
    const table: FlagTable = { file, line: t.line, bin: mark?.[2] ?? 'memoryd', every: mark?.[1] === 'every flag', rows: [] };
    for (const r of t.rows) {
      const row: FlagRow = { line: r.line };
      const f = /`(--[a-z0-9][a-z0-9-]*)(?: ([A-Z][A-Z_]*))?`/.exec(r.cells[0] ?? '');
      if (f) {
        row.flag = f[1]!;
        if (f[2] !== undefined) row.metavar = f[2];
      }
      const env = /`(MEMORYD_[A-Z0-9_]+)(?:=[^`]*)?`/.exec(r.cells[1] ?? '')?.[1];
      if (env !== undefined) row.env = env;
      table.rows.push(row);
    }
    tables.push(table);
  }
  return tables;
}

/** What is wrong with a flag table against its --help: one sentence each. */
export function checkFlagTable(table: FlagTable, help: Help): string[] {
  const problems: string[] = [];
  const at = (line: number) => `${table.file}:${line}`;
  const byFlag = new Map(help.flags.map((f) => [f.flag, f]));
  const listed = new Set<string>();
  for (const row of table.rows) {
    if (row.flag === undefined) {
      if (row.env === undefined) problems.push(`${at(row.line)}: a row with neither a flag nor a variable`);
      else if (!help.envOnly.includes(row.env)) problems.push(`${at(row.line)}: ${row.env} is not under "Environment only" in ${table.bin} --help`);
      else listed.add(row.env);
      continue;
    }
    listed.add(row.flag);
    const h = byFlag.get(row.flag);
    if (h === undefined) {
      problems.push(`${at(row.line)}: ${row.flag} is not an option in ${table.bin} --help`);
      continue;
    }
    if (h.metavar !== row.metavar) problems.push(`${at(row.line)}: ${row.flag} takes ${h.metavar ?? 'no value'} in ${table.bin} --help, ${row.metavar ?? 'no value'} here`);
    if (h.env !== row.env) problems.push(`${at(row.line)}: ${row.flag}'s variable is ${h.env ?? 'none'} in ${table.bin} --help, ${row.env ?? 'none'} here`);
  }
  if (table.every) {
    for (const f of help.flags) if (!listed.has(f.flag)) problems.push(`${at(table.line)}: ${table.bin} --help has ${f.flag}, this table does not`);
    for (const v of help.envOnly) if (!listed.has(v)) problems.push(`${at(table.line)}: ${table.bin} --help has ${v} (environment only), this table does not`);
  }
  return problems;
}

// ---------------------------------------------------------------- memoryctl's commands

/**
 * The memoryctl commands a document's section shows in its code blocks:
 * the first word after `memoryctl` and its global options (`help`'s
 * options, those with a value name taking the next word).
 */
export function documentedCommands(text: string, heading: string, help: Help): Set<string> {
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no section ${heading}`);
  const end = text.indexOf('\n## ', start + heading.length + 1);
  const section = text.slice(start, end < 0 ? undefined : end);
  const takesValue = new Set(help.flags.filter((f) => f.metavar !== undefined).map((f) => f.flag));
  const found = new Set<string>();
  for (const fence of scan(section).fences) {
    for (const line of fence.lines) {
      const code = line.replace(/(^|\s)#.*$/, '');
      const words = code.split(/\s+/).filter((w) => w !== '');
      for (let i = 0; i < words.length; i++) {
        if (words[i] !== 'memoryctl') continue;
        let j = i + 1;
        while (j < words.length && words[j]!.startsWith('-')) j += takesValue.has(words[j]!) ? 2 : 1;
        if (j < words.length && /^[a-z]+$/.test(words[j]!)) found.add(words[j]!);
      }
    }
  }
  return found;
}

/** What differs between the commands a document shows and those `help` lists: one sentence each. */
export function checkCommands(file: string, documented: ReadonlySet<string>, help: Help): string[] {
  const problems: string[] = [];
  for (const c of help.commands) if (!documented.has(c)) problems.push(`${file}: memoryctl --help has the command ${c}, the doc does not show it`);
  for (const c of documented) if (!help.commands.includes(c)) problems.push(`${file}: the doc shows memoryctl ${c}, which memoryctl --help does not list`);
  return problems;
}
