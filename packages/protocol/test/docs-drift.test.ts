// docs/protocol.md against the schemas: every method, param, result field,
// type, error code, capability and limit. Adding any of them to
// @memoryd/protocol without documenting it fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { type TSchema, Type } from '@sinclair/typebox';
import {
  Capabilities,
  ErrorCodes,
  ErrorNames,
  Limits,
  MemoryAdd,
  type MethodDescriptor,
  Methods,
  PROTOCOL_VERSION,
  defineMethod,
} from '@memoryd/protocol';
import { DocumentedTypes, checkMethod, checkTable, errorLines, namedSections } from './helpers/doc-check.js';
import { type Section, allSections, codeName, parseSections, sectionText, tables } from './helpers/markdown.js';

// The test runs from packages/protocol/dist-test/; the doc is at the root.
const DOC_URL = new URL('../../../docs/protocol.md', import.meta.url);
const doc = parseSections(readFileSync(DOC_URL, 'utf8'));

function h2(title: string): Section {
  const found = allSections(doc).filter((s) => s.level === 2 && s.title === title);
  assert.equal(found.length, 1, `expected one "## ${title}" section`);
  return found[0]!;
}

/** A section's text with thousands separators removed (16,384 → 16384). */
function plainNumbers(section: Section): string {
  return sectionText(section).replace(/(\d),(?=\d{3}\b)/g, '$1');
}

const codes = Object.values(ErrorCodes) as number[];

describe('docs/protocol.md: methods', () => {
  for (const descriptor of Methods as readonly MethodDescriptor[]) {
    it(`documents ${descriptor.method}: every param and result field, nothing more`, () => {
      assert.deepEqual(checkMethod(doc, descriptor), []);
    });

    it(`lists the error codes ${descriptor.method} can give, with their names`, () => {
      const section = namedSections(doc).get(descriptor.method)?.[0];
      const errors = errorLines(section?.children.find((c) => c.title === 'Errors'));
      assert.ok(errors.length > 0, 'no error lines');
      for (const { code, name } of errors) {
        assert.ok(codes.includes(code), `${code} is not an ErrorCodes value`);
        assert.equal(name, ErrorNames[code as keyof typeof ErrorNames], `name of ${code}`);
      }
      const listed = errors.map((e) => e.code);
      // Any method can be sent non-object params, and any can hit a bug.
      assert.ok(listed.includes(ErrorCodes.InvalidParams));
      assert.ok(listed.includes(ErrorCodes.InternalError));
    });
  }

  it('documents not_found for the methods that look up one fact or checkpoint', () => {
    for (const method of ['memory.reflect', 'checkpoint.resume']) {
      const section = namedSections(doc).get(method)?.[0];
      const listed = errorLines(section?.children.find((c) => c.title === 'Errors')).map((e) => e.code);
      assert.ok(listed.includes(ErrorCodes.NotFound), method);
    }
  });

  it('has no section for a method or type that does not exist', () => {
    const known = new Set([...Methods.map((m) => m.method), ...Object.keys(DocumentedTypes)]);
    for (const name of namedSections(doc).keys()) assert.ok(known.has(name), `### \`${name}\` is unknown`);
  });
});

describe('docs/protocol.md: types and export format', () => {
  for (const [name, schema] of Object.entries(DocumentedTypes)) {
    it(`documents ${name}`, () => {
      const sections = namedSections(doc).get(name) ?? [];
      assert.equal(sections.length, 1, `one "### \`${name}\`" section`);
      assert.deepEqual(checkTable(name, tables(sections[0]!.body)[0], schema, 'fields'), []);
    });
  }

  it('shows the export header line and names ExportRecord', () => {
    const text = sectionText(h2('Export and import'));
    assert.match(text, /\{"type":"memoryd-export","version":1,"createdAt"/);
    assert.ok(text.includes('`ExportRecord`'));
  });
});

describe('docs/protocol.md: errors, limits, version', () => {
  it('the error table is ErrorCodes with their names, each once', () => {
    const [table] = tables(h2('Errors').body);
    assert.ok(table !== undefined, 'no error table');
    assert.deepEqual(table.header.slice(0, 2), ['code', 'name']);
    const rows = table.rows.map((r) => [Number(codeName(r[0] ?? '')), codeName(r[1] ?? '')]);
    const expected = Object.values(ErrorCodes).map((c) => [c, ErrorNames[c]]);
    assert.deepEqual(
      [...rows].sort((a, b) => Number(a[0]) - Number(b[0])),
      [...expected].sort((a, b) => Number(a[0]) - Number(b[0])),
    );
  });

  it('the limits table lists every Limits constant with its exact value', () => {
    const [table] = tables(h2('Limits').body);
    assert.ok(table !== undefined, 'no limits table');
    const documented = new Map(table.rows.map((r) => [codeName(r[0] ?? ''), codeName((r[1] ?? '').split(' ')[0] ?? '')]));
    assert.equal(documented.size, table.rows.length, 'a limit is listed twice');
    assert.deepEqual([...documented.keys()].sort(), Object.keys(Limits).sort());
    for (const [key, value] of Object.entries(Limits)) assert.equal(documented.get(key), String(value), key);
  });

  it('the limits section mentions each wire limit', () => {
    const text = plainNumbers(h2('Limits'));
    const numbers = Object.values(Limits).filter((v): v is number => typeof v === 'number');
    for (const n of numbers) assert.match(text, new RegExp(`\\b${n}\\b`), String(n));
    for (const phrase of ['1 MiB', '8 MiB', '64 levels', '[A-Za-z0-9._:@-]']) assert.ok(text.includes(phrase), phrase);
  });

  it('framing states NDJSON and the 8 MiB line limit', () => {
    const text = plainNumbers(h2('Framing'));
    for (const phrase of ['NDJSON', '8 MiB', String(Limits.maxLineBytes), '`-32600`']) assert.ok(text.includes(phrase), phrase);
  });

  it('states the protocol version and lists exactly the capabilities', () => {
    const section = h2('Protocol version and capabilities');
    assert.ok(sectionText(section).includes(`Protocol version: \`${PROTOCOL_VERSION}\``));
    const [table] = tables(section.body);
    assert.ok(table !== undefined, 'no capability table');
    assert.deepEqual(table.rows.map((r) => codeName(r[0] ?? '')).sort(), Object.values(Capabilities).sort());
  });

  it('has the typed absence and JSON-RPC sections', () => {
    const absence = sectionText(h2('Typed absence'));
    for (const phrase of ['reportNotFound: true', '{notFound: true}', '-32004']) assert.ok(absence.includes(phrase), phrase);
    assert.ok(allSections(doc).some((s) => s.title === 'JSON-RPC details'));
  });
});

describe('the drift check can fail', () => {
  // The same checks, fed schemas that differ from the doc: each must complain.
  const params = MemoryAdd.params;
  const variant = (p: TSchema) => defineMethod('memory.add', p, MemoryAdd.result, MemoryAdd.summary);

  it('catches a param added to a schema but not to the doc', () => {
    const added = variant(Type.Object({ ...params.properties, priority: Type.Optional(Type.Integer()) }));
    assert.ok(checkMethod(doc, added).some((p) => p.includes('priority is not documented')));
  });

  it('catches a result field added to a schema but not to the doc', () => {
    const result = Type.Object({ ...MemoryAdd.result.properties, version: Type.Integer() });
    const added = defineMethod('memory.add', params, result, MemoryAdd.summary);
    assert.ok(checkMethod(doc, added).some((p) => p.includes('version is not documented')));
  });

  it('catches a documented param the schema lacks', () => {
    const { tags: _, ...rest } = params.properties;
    assert.ok(checkMethod(doc, variant(Type.Object(rest))).some((p) => p.includes('documents tags')));
  });

  it('catches a param whose required-ness changed', () => {
    const required = variant(Type.Object({ ...params.properties, tags: params.properties.tags.items }));
    assert.ok(checkMethod(doc, required).some((p) => p.includes('tags required')));
  });

  it('catches a type that changed', () => {
    const retyped = variant(Type.Object({ ...params.properties, content: Type.Integer() }));
    assert.ok(checkMethod(doc, retyped).some((p) => p.includes('content: type')));
  });

  it('catches an undocumented method', () => {
    const ghost = defineMethod('memory.forget', Type.Object({}), Type.Object({}), 'not in the doc');
    assert.notDeepEqual(checkMethod(doc, ghost), []);
  });
});
