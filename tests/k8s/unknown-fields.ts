/**
 * Unknown-field check for Kubernetes objects. kubernetes-models' validate() catches wrong types,
 * missing required fields and bad enum values, but not a misspelled field (`readinesProbe` is
 * accepted and then silently ignored by the API server's non-strict decoding). The field names are
 * read from the same package's type declarations (one `export interface` per .d.ts file, one
 * property per line), so the allow-list follows the schema version instead of being hand-kept.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

type FieldType = { ref: string } | { array: FieldType } | { map: FieldType } | { leaf: true };

interface Shape {
  /** null: the file declares a type alias (IntOrString, Quantity, Time), a leaf value. */
  props: Map<string, FieldType> | null;
}

/** kubernetes-models' directory (through pnpm's link) and the directory of its own dependencies. */
const MODELS_ROOT = realpathSync(resolve(dirname(fileURLToPath(import.meta.resolve('kubernetes-models'))), '.'));
const DEPS_ROOT = dirname(MODELS_ROOT);

const shapes = new Map<string, Shape>();

function load(file: string): Shape {
  const cached = shapes.get(file);
  if (cached) return cached;
  const text = readFileSync(file, 'utf8');
  const imports = new Map<string, string>();
  for (const m of text.matchAll(/^import \{ ([^}]+) \} from "([^"]+)";$/gm)) {
    const from = m[2] ?? '';
    if (!from.startsWith('.') && !from.startsWith('@kubernetes-models/apimachinery')) continue;
    const target = from.startsWith('.') ? join(dirname(file), from.replace(/\.js$/, '.d.ts')) : join(DEPS_ROOT, `${from}.d.ts`);
    for (const name of (m[1] ?? '').split(',')) imports.set(name.trim(), target);
  }
  const body = /^export interface \w+(?: extends [\w, ]+)? \{\n([\s\S]*?)^\}/m.exec(text)?.[1];
  const shape: Shape = { props: null };
  if (body !== undefined) {
    const props = new Map<string, FieldType>();
    const lines = body.split('\n');
    lines.forEach((line, i) => {
      const m = /^ {4}"([^"]+)"\??: (.*)$/.exec(line);
      if (!m) return;
      const type = (m[2] ?? '').trim();
      // A map is written over three lines: `{`, `[key: string]: T;`, `};`.
      const mapValue = type === '{' ? /\[key: string\]: (.+);/.exec(lines[i + 1] ?? '')?.[1] : undefined;
      props.set(m[1] ?? '', type === '{' ? { map: parse(mapValue ?? 'unknown', imports) } : parse(type.replace(/;$/, ''), imports));
    });
    shape.props = props;
  }
  shapes.set(file, shape);
  return shape;
}

function parse(type: string, imports: Map<string, string>): FieldType {
  const array = /^Array<(.+)>$/.exec(type);
  if (array) return { array: parse(array[1] ?? '', imports) };
  const ref = imports.get(type);
  return ref ? { ref } : { leaf: true };
}

function walk(value: unknown, type: FieldType, path: string, problems: string[]): void {
  if (value === null || typeof value !== 'object') return;
  if ('array' in type) {
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, type.array, `${path}[${i}]`, problems));
    return;
  }
  if ('map' in type) {
    for (const [k, v] of Object.entries(value)) walk(v, type.map, `${path}.${k}`, problems);
    return;
  }
  if (!('ref' in type) || Array.isArray(value)) return;
  const { props } = load(type.ref);
  if (!props) return;
  for (const [k, v] of Object.entries(value)) {
    const field = props.get(k);
    if (!field) problems.push(`${path}.${k}: unknown field`);
    else walk(v, field, `${path}.${k}`, problems);
  }
}

/** The declaration file of a kind: apps/v1 + Deployment -> <models>/apps/v1/Deployment.d.ts. */
function kindFile(apiVersion: string, kind: string): string {
  return join(MODELS_ROOT, apiVersion, `${kind}.d.ts`);
}

/** Every field of obj, at any depth, that the schema of its kind does not declare. */
export function unknownFields(obj: { apiVersion: string; kind: string }, label: string): string[] {
  const file = kindFile(obj.apiVersion, obj.kind);
  const shape = load(file);
  // A kind without a readable interface would pass everything: refuse it instead.
  if (!shape.props || !shape.props.has('metadata')) return [`${label}: no field list for ${obj.apiVersion} ${obj.kind} (${file})`];
  const problems: string[] = [];
  walk(obj, { ref: file }, label, problems);
  return problems;
}
