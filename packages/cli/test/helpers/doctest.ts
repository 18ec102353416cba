// The doc-test harness: the commands of the README and docs/operations.md
// run against a real daemon (their flag tables are checked against --help
// by help-tables.ts).
//
// Runnable blocks. A fenced block whose info string is `sh doctest` is run,
// one command at a time, in order, by docs.test.ts; any other block is
// prose. GitHub highlights it as `sh` and shows no marker. A command is a
// line that is not blank and does not start with `#` (with the lines a
// trailing `\` continues); it runs under `/bin/sh -c`, so `~`, `&&`, pipes
// and a trailing `# comment` work as in a terminal. Mark only what runs
// here in seconds: nothing that needs systemd or launchd, the network, npm
// or a terminal of its own.
//
// Expected output. Lines `#> TEXT` (`#>` alone for an empty line) right
// below a command are what it prints: its stdout, then its stderr. A
// following block whose info string is `text doctest` (prose may stand
// between) is the expected output of the last command of the runnable block
// before it. In both:
// - `…` matches any text within a line, and a line that is only `…` any
//   number of lines, none included;
// - `<NAME>` (capitals, digits, `_`) matches a run of non-space characters
//   and binds it: a later `<NAME>` in the same document must be the same
//   text, and later commands of the document get it as `$NAME`;
// - runs of spaces count as one space, and lines are trimmed;
// - a last line `[exit N]` expects exit status N; otherwise every command
//   must exit 0. A command without expected output is checked for its exit
//   status only.
//
// The environment. Each document runs in a temp dir of its own, against a
// daemon the test starts on that dir's socket and data dir, which are also
// the defaults there: HOME, XDG_RUNTIME_DIR, XDG_DATA_HOME, XDG_STATE_HOME,
// XDG_CONFIG_HOME, XDG_CACHE_HOME and TMPDIR point into it, and so do
// MEMORYD_SOCKET and MEMORYD_DATA_DIR. `memoryd`, `memoryd-mcp` and
// `memoryctl` on the PATH are this checkout's bins. Commands run in HOME.
// Before matching, the output's temp paths read as a user's: HOME is
// `/home/you`, XDG_RUNTIME_DIR `/run/user/1000`, the rest of the temp dir
// `/tmp/doctest`. A command that prints `Stopping memoryd (pid N).` is
// followed by a wait (5 s at most) until that process is gone, as a user's
// next command would come after the daemon had exited.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanEnv, isAlive, tempDir, trackPid, untrackPid, waitFor, withTimeout } from '@memoryd/test-support';
import { scan } from './markdown.js';

// ---------------------------------------------------------------- parsing

/** One command of a runnable block, with what it should print and its exit status. */
export interface DocCommand {
  file: string;
  /** 1-based line of the command in its file. */
  line: number;
  text: string;
  /** Expected output lines, or undefined when only the exit status is checked. */
  expected?: string[];
  exit: number;
}

const EXIT_LINE = /^\[exit (\d+)\]$/;

/** Sets a command's expected output, taking a last `[exit N]` line as its exit status. */
function expect(cmd: DocCommand, lines: string[]): void {
  const last = EXIT_LINE.exec(lines[lines.length - 1]?.trim() ?? '');
  if (last) {
    cmd.exit = Number(last[1]);
    lines = lines.slice(0, -1);
  }
  cmd.expected = lines;
}

/** The commands of a document's `sh doctest` blocks, in order, with their expected output. */
export function runnableCommands(file: string, text: string): DocCommand[] {
  const commands: DocCommand[] = [];
  let lastOfBlock: DocCommand | undefined;
  for (const fence of scan(text).fences) {
    const [lang, ...words] = fence.info;
    if (!words.includes('doctest')) continue;
    if (lang === 'text') {
      const cmd = lastOfBlock;
      if (cmd === undefined || cmd.expected !== undefined) {
        throw new Error(`${file}:${fence.line}: a text doctest block must follow a sh doctest block whose last command shows no output`);
      }
      expect(cmd, fence.lines);
      lastOfBlock = undefined;
      continue;
    }
    if (lang !== 'sh') throw new Error(`${file}:${fence.line}: doctest blocks are sh (commands) or text (their output), not ${lang}`);
    let current: DocCommand | undefined;
    let output: string[] = [];
    const finish = () => {
      if (current !== undefined && output.length > 0) expect(current, output);
      output = [];
    };
    for (let i = 0; i < fence.lines.length; i++) {
      const line = fence.lines[i]!;
      const trimmed = line.trim();
      if (trimmed.startsWith('#>')) {
        if (current === undefined) throw new Error(`${file}:${fence.line + i}: output (#>) before any command`);
        output.push(trimmed.slice(2).replace(/^ /, ''));
        continue;
      }
      if (trimmed === '' || trimmed.startsWith('#')) continue;
      finish();
      const at = fence.line + i;
      let cmdText = line;
      while (/\\\s*$/.test(cmdText.split('\n').pop()!) && i + 1 < fence.lines.length) cmdText += `\n${fence.lines[++i]!}`;
      current = { file, line: at, text: cmdText, exit: 0 };
      commands.push(current);
    }
    finish();
    lastOfBlock = current;
  }
  return commands;
}

// ---------------------------------------------------------------- matching

const PLACEHOLDER = /(…|<[A-Z][A-Z0-9_]*>)/;

/** Runs of blanks as one space, trimmed: columns may be padded differently. */
function squash(line: string): string {
  return line.replace(/[ \t]+/g, ' ').trim();
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One expected line as an anchored regular expression; unbound placeholders become named groups. */
function linePattern(line: string, bound: ReadonlyMap<string, string>): RegExp {
  const seen = new Set<string>();
  const source = squash(line)
    .split(PLACEHOLDER)
    .map((part) => {
      if (part === '…') return '.*';
      const name = /^<([A-Z][A-Z0-9_]*)>$/.exec(part)?.[1];
      if (name === undefined) return escapeRe(part);
      if (bound.has(name)) return escapeRe(bound.get(name)!);
      if (seen.has(name)) return `\\k<${name}>`;
      seen.add(name);
      return `(?<${name}>\\S+)`;
    })
    .join('');
  return new RegExp(`^${source}$`);
}

/**
 * Matches output lines against expected ones (see the top of this file);
 * returns the placeholders bound, with those of `bound`, or undefined.
 */
export function matchOutput(expected: readonly string[], actual: readonly string[], bound: ReadonlyMap<string, string> = new Map()): Map<string, string> | undefined {
  const got = actual.map(squash);
  while (got.length > 0 && got[got.length - 1] === '') got.pop();
  const go = (i: number, j: number, b: ReadonlyMap<string, string>): Map<string, string> | undefined => {
    if (i === expected.length) return j === got.length ? new Map(b) : undefined;
    if (squash(expected[i]!) === '…') {
      for (let k = j; k <= got.length; k++) {
        const r = go(i + 1, k, b);
        if (r) return r;
      }
      return undefined;
    }
    if (j === got.length) return undefined;
    const m = linePattern(expected[i]!, b).exec(got[j]!);
    if (!m) return undefined;
    const next = new Map(b);
    for (const [k, v] of Object.entries(m.groups ?? {})) next.set(k, v);
    return go(i + 1, j + 1, next);
  };
  return go(0, 0, bound);
}

// ---------------------------------------------------------------- running

/** How a command ended and what it printed. */
export interface ShellRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `/bin/sh -c command`, bounded; on timeout kills its process group and throws. */
export async function sh(command: string, env: Record<string, string>, cwd: string, timeoutMs: number): Promise<ShellRun> {
  const child = spawn('/bin/sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const pid = child.pid!;
  trackPid(pid);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  try {
    const end = await withTimeout(closed, timeoutMs, `\`${command}\``);
    return { ...end, stdout, stderr };
  } catch (err) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    throw new Error(`${(err as Error).message}; stdout:\n${stdout}\nstderr:\n${stderr}`);
  } finally {
    untrackPid(pid);
  }
}

/** A document's temp environment (see the top of this file). */
export interface DocEnv {
  root: string;
  home: string;
  runtime: string;
  socket: string;
  dataDir: string;
  /** What the daemon's spawn gets on top of cleanEnv. */
  overrides: Record<string, string>;
  /** What commands run with. */
  env: Record<string, string>;
}

/** Makes a temp HOME, XDG dirs and a bin dir whose memoryd, memoryd-mcp and memoryctl are `bins`' scripts. */
export async function docEnv(bins: Record<'memoryd' | 'memoryd-mcp' | 'memoryctl', string>): Promise<DocEnv> {
  const root = tempDir('md-');
  const home = join(root, 'home');
  const runtime = join(root, 'run');
  const binDir = join(root, 'bin');
  for (const d of [home, join(home, '.local/share'), join(home, '.local/state'), join(home, '.config'), join(home, '.cache'), join(root, 'tmp'), binDir]) mkdirSync(d, { recursive: true });
  mkdirSync(runtime, { mode: 0o700 });
  for (const [name, script] of Object.entries(bins)) {
    const path = join(binDir, name);
    await writeFile(path, `#!/bin/sh\nexec '${process.execPath}' '${script}' "$@"\n`);
    await chmod(path, 0o755);
  }
  const socket = join(runtime, 'memoryd', 'memoryd.sock');
  const dataDir = join(home, '.local/share', 'memoryd');
  const overrides: Record<string, string> = {
    HOME: home,
    XDG_RUNTIME_DIR: runtime,
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_STATE_HOME: join(home, '.local/state'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    TMPDIR: join(root, 'tmp'),
    MEMORYD_SOCKET: socket,
    MEMORYD_DATA_DIR: dataDir,
  };
  const env = cleanEnv({ ...overrides, PATH: `${binDir}:${process.env['PATH'] ?? '/usr/bin:/bin'}`, TERM: 'dumb', NO_COLOR: '1' });
  return { root, home, runtime, socket, dataDir, overrides, env };
}

/** Output with the temp paths a user's (see the top of this file). */
function asUsers(text: string, e: DocEnv): string {
  return text.split(e.home).join('/home/you').split(e.runtime).join('/run/user/1000').split(e.root).join('/tmp/doctest');
}

/** Runs one command in a document's environment; returns what is wrong with it, if anything, and updates `bound`. */
export async function runCommand(cmd: DocCommand, e: DocEnv, bound: Map<string, string>, timeoutMs = 20_000): Promise<string | undefined> {
  const env = { ...e.env, ...Object.fromEntries(bound) };
  const run = await sh(cmd.text, env, e.home, timeoutMs);
  const out = asUsers(run.stdout + run.stderr, e);
  const stopping = /Stopping memoryd \(pid (\d+)\)/.exec(run.stdout);
  if (stopping) await waitFor(() => !isAlive(Number(stopping[1])), 5_000, `memoryd ${stopping[1]} to exit`);
  const where = `${cmd.file}:${cmd.line}: \`${cmd.text}\``;
  if (run.code !== cmd.exit) {
    return `${where} exited ${run.code ?? run.signal}, the doc expects ${cmd.exit}; it printed:\n${out}`;
  }
  if (cmd.expected === undefined) return undefined;
  const got = matchOutput(cmd.expected, out.split('\n'), bound);
  if (got === undefined) return `${where} printed something else.\nThe doc shows:\n${cmd.expected.join('\n')}\nIt printed:\n${out}`;
  for (const [k, v] of got) {
    if (bound.has(k)) continue;
    if (k in e.env) return `${where}: the placeholder <${k}> would hide the variable ${k}; name it otherwise`;
    bound.set(k, v);
  }
  return undefined;
}
