// The repository cites its own docs (issue 33). No source, test, script or
// doc file may cite DESIGN.md or STYLE.md: they are kept outside this
// repository, so a reader of the code cannot follow the reference. The contract it held is
// stated in docs/protocol.md (the wire), docs/architecture.md (processes,
// packages, clients, lifecycle) and docs/api-stability.md (what is
// promised); cite those, with the section, as in
// `// docs/protocol.md "Framing": ...`.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

// The test runs from packages/protocol/dist-test/; the repository is three up.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Directories that hold no file of ours: dependencies, git, build output, bench output. */
const SKIP_DIR = /^(node_modules|\.git|\.bench|dist.*)$/;
/** Generated files. */
const SKIP_FILE = /^package-lock\.json$|\.tsbuildinfo$/;
/** A citation of the documents kept outside the repository (DESIGN.md, STYLE.md, anything in ../shared). */
const CITATION = /DESIGN\.md|DESIGN's|STYLE\.md|\.\.\/shared\//;

/** Every file of the repository, as a path from its root with `/`. */
function repositoryFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIR.test(entry.name)) repositoryFiles(path, out);
    } else if (entry.isFile() && !SKIP_FILE.test(entry.name)) {
      out.push(relative(ROOT, path).split(sep).join('/'));
    }
  }
  return out;
}

/** The lines of a text file that cite DESIGN.md, as `path:line: text`; none for a binary file. */
function citations(path: string): string[] {
  const bytes = readFileSync(join(ROOT, path));
  if (bytes.includes(0)) return [];
  return bytes
    .toString('utf8')
    .split('\n')
    .flatMap((line, i) => (CITATION.test(line) ? [`${path}:${i + 1}: ${line.trim()}`] : []));
}

describe('citations stay inside the repository', () => {
  const files = repositoryFiles(ROOT);

  it('finds the sources, tests, scripts and docs (so the check below can fail)', () => {
    for (const path of ['README.md', 'docs/protocol.md', 'docs/adr/0001-record-decisions.md', 'packages/protocol/src/limits.ts', 'packages/protocol/test/no-outside-citations.test.ts', 'scripts/run-tests.mjs', '.ci/run']) {
      assert.ok(files.includes(path), `${path} was not scanned`);
    }
    assert.ok(!files.some((f) => f.split('/').some((part) => part === 'node_modules' || part.startsWith('dist'))), 'node_modules or dist scanned');
    assert.ok(CITATION.test('// DESIGN.md "Transport": ...'));
    assert.ok(CITATION.test('(STYLE.md §3)') && CITATION.test('see ../shared/DESIGN.md'));
  });

  it('no file cites DESIGN.md; cite docs/protocol.md, docs/architecture.md or docs/api-stability.md', () => {
    const found = files.filter((f) => f !== 'packages/protocol/test/no-outside-citations.test.ts').flatMap(citations);
    assert.deepEqual(found, []);
  });
});
