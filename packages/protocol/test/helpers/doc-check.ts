// Holds docs/protocol.md's tables to the schemas: every property listed,
// nothing listed that the schema lacks, required/always columns and type
// words that agree. Pure functions returning problems, so a test can also
// feed them a changed schema and see them fail.
import type { TSchema } from '@sinclair/typebox';
import {
  AgentSummary,
  Checkpoint,
  CheckpointRecord,
  CheckpointSummary,
  ExportHeader,
  ExportRecord,
  Fact,
  FactVersion,
  FactRecord,
  type MethodDescriptor,
} from '@memoryd/protocol';
import { type Section, type Table, codeName, tables } from './markdown.js';

type Schema = TSchema & {
  type?: string;
  const?: unknown;
  anyOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
};

/** Schemas the doc names as types; each has its own `### \`Name\`` section. */
export const DocumentedTypes: Record<string, TSchema> = {
  Fact,
  FactVersion,
  Checkpoint,
  CheckpointSummary,
  AgentSummary,
  ExportHeader,
  FactRecord,
  CheckpointRecord,
};

/** Named schemas without a table of their own (a union of documented types). */
const NamedUnions: Record<string, TSchema> = { ExportRecord };

function nameOf(schema: TSchema): string | undefined {
  const all = { ...DocumentedTypes, ...NamedUnions };
  return Object.keys(all).find((name) => all[name] === schema);
}

/** The object branches of a schema: its `anyOf` members, or itself. */
function branches(schema: Schema): Schema[] {
  return Array.isArray(schema.anyOf) && schema.anyOf.every((b) => b.type === 'object') ? schema.anyOf : [schema];
}

interface Property {
  schema: Schema;
  /** Required in every branch: present in every value. */
  always: boolean;
}

/** The top-level properties over all branches. */
export function propertiesOf(schema: TSchema): Map<string, Property> {
  const out = new Map<string, Property>();
  const all = branches(schema as Schema);
  for (const branch of all) {
    for (const [name, sub] of Object.entries(branch.properties ?? {})) {
      if (!out.has(name)) {
        const always = all.every((b) => (b.required ?? []).includes(name));
        out.set(name, { schema: sub, always });
      }
    }
  }
  return out;
}

/** Why `cell` does not describe `schema`'s type, or undefined when it does. */
function typeProblem(schema: Schema, cell: string): string | undefined {
  const name = nameOf(schema);
  if (name !== undefined) return cell.includes(name) ? undefined : `type should name ${name}`;
  const consts = schema.anyOf?.map((b) => b.const);
  if (consts !== undefined && consts.length > 0 && consts.every((c) => c !== undefined)) {
    const missing = consts.map((c) => JSON.stringify(c)).filter((c) => !cell.includes(c));
    return missing.length === 0 ? undefined : `type should list ${missing.join(', ')}`;
  }
  if (schema.const !== undefined) {
    const literal = JSON.stringify(schema.const);
    return cell.includes(literal) ? undefined : `type should be ${literal}`;
  }
  if (schema.type === 'array') {
    const item = schema.items === undefined ? undefined : nameOf(schema.items);
    const want = item === undefined ? '[]' : `${item}[]`;
    return cell.includes(want) ? undefined : `type should be an array (${want})`;
  }
  if (typeof schema.type === 'string') {
    return cell.includes(schema.type) ? undefined : `type should say ${schema.type}`;
  }
  return undefined;
}

/**
 * Problems of `table` as the documentation of `schema`'s properties. In a
 * params table the third column is `required` (`yes`/`no`); in a result or
 * type table it is `present` (`always` exactly when always present).
 */
export function checkTable(label: string, table: Table | undefined, schema: TSchema, kind: 'params' | 'fields'): string[] {
  const props = propertiesOf(schema);
  if (table === undefined) return props.size === 0 ? [] : [`${label}: no table`];
  const problems: string[] = [];
  const [first, type, third] = kind === 'params' ? ['param', 'type', 'required'] : ['field', 'type', 'present'];
  if (table.header[0] !== first || table.header[1] !== type || table.header[2] !== third) {
    problems.push(`${label}: header should start | ${first} | ${type} | ${third} |, is | ${table.header.join(' | ')} |`);
    return problems;
  }
  const seen = new Set<string>();
  for (const row of table.rows) {
    const name = codeName(row[0] ?? '');
    if (name === undefined) {
      problems.push(`${label}: first cell ${JSON.stringify(row[0])} is not a backticked name`);
      continue;
    }
    if (seen.has(name)) problems.push(`${label}: ${name} listed twice`);
    seen.add(name);
    const prop = props.get(name);
    if (prop === undefined) {
      problems.push(`${label}: documents ${name}, which the schema lacks`);
      continue;
    }
    const mark = (row[2] ?? '').trim();
    if (kind === 'params' && mark !== (prop.always ? 'yes' : 'no')) {
      problems.push(`${label}: ${name} required should be ${prop.always ? 'yes' : 'no'}`);
    }
    if (kind === 'fields' && (mark === 'always') !== prop.always) {
      problems.push(`${label}: ${name} present should ${prop.always ? '' : 'not '}be "always"`);
    }
    const typeIssue = typeProblem(prop.schema, row[1] ?? '');
    if (typeIssue !== undefined) problems.push(`${label}: ${name}: ${typeIssue} (doc says ${JSON.stringify(row[1])})`);
  }
  for (const name of props.keys()) {
    if (!seen.has(name)) problems.push(`${label}: ${name} is not documented`);
  }
  return problems;
}

/** Inline (unnamed) objects under top-level properties: they need a table too. */
function inlineObjects(schema: TSchema): Array<{ heading: string; schema: Schema }> {
  const out: Array<{ heading: string; schema: Schema }> = [];
  for (const [name, { schema: sub }] of propertiesOf(schema)) {
    if (nameOf(sub) !== undefined) continue;
    if (sub.type === 'object' && sub.properties !== undefined) out.push({ heading: `\`${name}\``, schema: sub });
    const items = sub.items;
    if (sub.type === 'array' && items !== undefined && nameOf(items) === undefined && items.properties !== undefined) {
      out.push({ heading: `\`${name}\` items`, schema: items });
    }
  }
  return out;
}

function firstTable(section: Section | undefined): Table | undefined {
  return section === undefined ? undefined : tables(section.body)[0];
}

/** The `### \`name\`` sections of the document, by name. */
export function namedSections(root: Section): Map<string, Section[]> {
  const out = new Map<string, Section[]>();
  const visit = (s: Section) => {
    const name = s.level === 3 ? codeName(s.title) : undefined;
    if (name !== undefined) out.set(name, [...(out.get(name) ?? []), s]);
    s.children.forEach(visit);
  };
  visit(root);
  return out;
}

/** Error lines of a method: `- \`-32602\` \`invalid_params\`: …`. */
export function errorLines(section: Section | undefined): Array<{ code: number; name: string }> {
  const out: Array<{ code: number; name: string }> = [];
  for (const line of section?.body ?? []) {
    const m = /^- `(-\d+)` `([a-z_]+)`/.exec(line.trim());
    if (m !== null) out.push({ code: Number(m[1]), name: m[2]! });
  }
  return out;
}

/** Every problem of one method's documentation. */
export function checkMethod(root: Section, descriptor: MethodDescriptor): string[] {
  const found = namedSections(root).get(descriptor.method) ?? [];
  if (found.length !== 1) return [`${descriptor.method}: expected one "### \`${descriptor.method}\`" section, found ${found.length}`];
  const section = found[0]!;
  const sub = (title: string) => section.children.find((c) => c.level === 4 && c.title === title);
  const problems: string[] = [];
  for (const [part, schema, kind] of [
    ['Params', descriptor.params, 'params'],
    ['Result', descriptor.result, 'fields'],
  ] as const) {
    const label = `${descriptor.method} ${part}`;
    const s = sub(part);
    if (s === undefined) {
      problems.push(`${label}: no "#### ${part}" section`);
      continue;
    }
    const table = firstTable(s);
    if (table === undefined && propertiesOf(schema).size === 0 && !s.body.join(' ').includes('None')) {
      problems.push(`${label}: should say None`);
    }
    problems.push(...checkTable(label, table, schema, kind));
    for (const inline of inlineObjects(schema)) {
      const title = `${part}: ${inline.heading}`;
      problems.push(...checkTable(`${descriptor.method} ${title}`, firstTable(sub(title)), inline.schema, 'fields'));
      if (sub(title) === undefined) problems.push(`${descriptor.method}: no "#### ${title}" section`);
    }
  }
  if (sub('Errors') === undefined) problems.push(`${descriptor.method}: no "#### Errors" section`);
  return problems;
}
