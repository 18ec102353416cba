// The import direction of docs/architecture.md "Packages and their imports", checked on the sources:
// protocol imports nothing of ours and no Node module (it does no I/O);
// every other package imports only what the table allows, and declares
// it in package.json and tsconfig references. The compiler's project
// references order the build; this test closes the gap they leave (a
// hoisted workspace package resolves whether referenced or not).
// Test-only packages (private, never published) hold helpers the suites
// share: test code may use them, src never.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

// The test runs from packages/protocol/dist-test/.
const PACKAGES = fileURLToPath(new URL('../../', import.meta.url));

/** The "may import" column of docs/architecture.md, by package directory. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  protocol: [],
  daemon: ['protocol'],
  client: ['protocol'],
  mcp: ['protocol', 'client'],
  cli: ['protocol', 'client'],
};

/**
 * Private packages only test code may use (not in docs/architecture.md's table: they
 * ship nothing), with what their own src may import.
 */
const TEST_ONLY: Record<string, readonly string[]> = {
  'test-support': ['protocol'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Module specifiers of static imports, re-exports and dynamic imports. */
function specifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\s[^;]*?\sfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of source.matchAll(pattern)) found.push(m[1]!);
  return found;
}

/** References of a tsconfig.json to sibling dirs `prefix<name>` (it may hold comments; references are plain `"path": "…"`). */
function references(file: string, prefix: string): string[] {
  const text = readFileSync(file, 'utf8');
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return [...text.matchAll(new RegExp(`"path"\\s*:\\s*"${escaped}([^"/]+)"`, 'g'))].map((m) => m[1]!);
}

/** Our packages a specifier names (`@memoryd/client/x` → `client`). */
function ourPackage(spec: string): string | undefined {
  return /^@memoryd\/([^/]+)/.exec(spec)?.[1];
}

const present = readdirSync(PACKAGES).filter((name) => statSync(join(PACKAGES, name)).isDirectory());

describe('package layering', () => {
  it('every package is one docs/architecture.md lists', () => {
    for (const name of present) assert.ok(name in MAY_IMPORT || name in TEST_ONLY, `packages/${name} is not in docs/architecture.md's table`);
    assert.ok(present.includes('protocol') && present.includes('daemon'));
  });

  it('the specifier scanner finds every import form (so the checks below can fail)', () => {
    const sample = [
      "import { a } from '@memoryd/daemon';",
      "import type { B } from './b.js';",
      "export { c } from 'node:fs';",
      "import 'side-effect';",
      "const d = await import('@memoryd/cli');",
      "import {\n  e,\n  f,\n} from '@sinclair/typebox';",
    ].join('\n');
    assert.deepEqual(specifiers(sample).sort(), ['./b.js', '@memoryd/cli', '@memoryd/daemon', '@sinclair/typebox', 'node:fs', 'side-effect'].sort());
  });

  it('protocol imports nothing of ours and no Node module', () => {
    const builtins = new Set(builtinModules);
    for (const file of sourceFiles(join(PACKAGES, 'protocol', 'src'))) {
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        assert.equal(ourPackage(spec), undefined, `${file} imports ${spec}`);
        assert.ok(!spec.startsWith('node:') && !builtins.has(spec), `${file} imports ${spec}`);
      }
    }
  });

  for (const name of present) {
    it(`${name}: sources, package.json and tsconfig import only what docs/architecture.md allows`, () => {
      const allowed = MAY_IMPORT[name] ?? TEST_ONLY[name] ?? [];
      const root = join(PACKAGES, name);
      const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
      };
      const declared = Object.keys(manifest.dependencies ?? {}).map(ourPackage).filter((p) => p !== undefined);
      for (const dep of declared) assert.ok(allowed.includes(dep), `package.json depends on @memoryd/${dep}`);

      const refs = references(join(root, 'tsconfig.json'), '../');
      for (const ref of refs) assert.ok(allowed.includes(ref), `tsconfig references ../${ref}`);

      for (const file of sourceFiles(join(root, 'src'))) {
        for (const spec of specifiers(readFileSync(file, 'utf8'))) {
          const pkg = ourPackage(spec);
          if (pkg === undefined) continue;
          assert.ok(allowed.includes(pkg), `${file} imports ${spec}`);
          assert.ok(declared.includes(pkg), `${file} imports ${spec}, missing from package.json`);
          assert.ok(refs.includes(pkg), `${file} imports ${spec}, missing from tsconfig references`);
        }
      }
    });
  }

  it('the tsconfig reference scanner finds references (so the checks can fail)', () => {
    const refs = references(join(PACKAGES, 'mcp', 'test', 'tsconfig.json'), '../../');
    assert.ok(refs.includes('protocol') && refs.includes('test-support'), refs.join(', '));
  });

  for (const testOnly of Object.keys(TEST_ONLY)) {
    it(`${testOnly}: private, and used by test code only, declared where it is used`, () => {
      assert.ok(present.includes(testOnly), `packages/${testOnly} is missing`);
      const own = JSON.parse(readFileSync(join(PACKAGES, testOnly, 'package.json'), 'utf8')) as { private?: boolean };
      assert.equal(own.private, true, `${testOnly} must stay private`);
      for (const name of present) {
        assert.ok(!(MAY_IMPORT[name] ?? TEST_ONLY[name] ?? []).includes(testOnly), `${name} may not import ${testOnly}`);
        const root = join(PACKAGES, name);
        const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
          dependencies?: Record<string, string>;
          devDependencies?: Record<string, string>;
        };
        assert.equal(manifest.dependencies?.[`@memoryd/${testOnly}`], undefined, `${name}'s dependencies name ${testOnly}`);
        assert.ok(!references(join(root, 'tsconfig.json'), '../').includes(testOnly), `${name}/tsconfig.json references ${testOnly}`);
        for (const file of sourceFiles(join(root, 'src'))) {
          for (const spec of specifiers(readFileSync(file, 'utf8'))) assert.notEqual(ourPackage(spec), testOnly, `${file} imports ${spec}`);
        }
        let testFiles: string[] = [];
        try {
          testFiles = sourceFiles(join(root, 'test'));
        } catch {
          continue; // A package without tests.
        }
        const used = testFiles.some((file) => specifiers(readFileSync(file, 'utf8')).some((spec) => ourPackage(spec) === testOnly));
        if (!used) continue;
        assert.ok(manifest.devDependencies?.[`@memoryd/${testOnly}`] !== undefined, `${name}'s tests use ${testOnly}, missing from devDependencies`);
        const testRefs = references(join(root, 'test', 'tsconfig.json'), '../../');
        assert.ok(testRefs.includes(testOnly), `${name}'s tests use ${testOnly}, missing from test/tsconfig.json references`);
      }
    });
  }
});
