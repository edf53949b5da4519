/**
 * The unit that grows too long is a function, not a file (docs/conventions.md "Files follow
 * concepts"): no function of a service or package spans more than MAX_FUNCTION_LINES lines, and
 * none has more than MAX_OWN_LINES of its own, the lines of the functions nested in it taken out.
 * A function over either bound is split along its concepts into named modules, never by moving
 * code sideways to meet the number. Every function-like node with a body counts: declarations,
 * expressions, arrows, methods, accessors and constructors.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import ts from 'typescript';
import { sourceFiles } from './source-files.ts';

/**
 * The bounds, declared once here (docs/conventions.md "Files follow concepts"). A closure factory
 * is as long as the closures it holds: the ones that are one concept (a page group's routes, a
 * store) stay within MAX_FUNCTION_LINES from its body's first line to its last, and the ones that
 * were past it each held several (the credential resolver's key and OAuth paths, the four groups
 * of second-factor pages). MAX_OWN_LINES is what a reader follows at one level; a composition
 * root past it wires more than one concern (the gateway's authentication, admission and
 * management layer each became a module of their own).
 */
const MAX_FUNCTION_LINES = 150;
const MAX_OWN_LINES = 100;

/** A function-like node with a body, its name and the lines its body covers. */
interface Span {
  name: string;
  first: number;
  last: number;
  nested: Span[];
}

/** The name a function goes by: its own, or the variable, property or call it is given to. */
function nameOf(node: ts.SignatureDeclaration, file: ts.SourceFile): string {
  if (node.name && !ts.isComputedPropertyName(node.name)) return node.name.getText(file);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(file);
  if (ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText(file).slice(0, 40)})`;
  return '(anonymous)';
}

/** The functions of one file, each with the functions nested directly in it. */
function spans(file: ts.SourceFile): Span[] {
  const line = (pos: number) => file.getLineAndCharacterOfPosition(pos).line;
  const visit = (node: ts.Node, into: Span[]): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const body = node.body as ts.Node;
      const span: Span = { name: nameOf(node, file), first: line(body.getStart(file)), last: line(body.getEnd()), nested: [] };
      into.push(span);
      ts.forEachChild(node, (child) => visit(child, span.nested));
    } else ts.forEachChild(node, (child) => visit(child, into));
  };
  const out: Span[] = [];
  visit(file, out);
  return out;
}

/** A function's lines that no function nested in it covers. */
function ownLines(span: Span): number {
  const covered = new Set<number>();
  for (const inner of span.nested) for (let l = inner.first; l <= inner.last; l++) covered.add(l);
  return span.last - span.first + 1 - covered.size;
}

/** Every function of the services' and packages' sources, with its total and own lines. */
async function measured(): Promise<{ where: string; total: number; own: number }[]> {
  const out: { where: string; total: number; own: number }[] = [];
  for (const { path, text } of await sourceFiles()) {
    const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const walk = (list: Span[]): void => {
      for (const span of list) {
        out.push({ where: `${path}:${span.first + 1} ${span.name}`, total: span.last - span.first + 1, own: ownLines(span) });
        walk(span.nested);
      }
    };
    walk(spans(file));
  }
  return out;
}

test(`no function spans more than ${MAX_FUNCTION_LINES} lines, or has more than ${MAX_OWN_LINES} of its own`, async () => {
  const all = await measured();
  assert.ok(all.length > 1000, `measured ${all.length} functions: the sources were not found`);
  const long = all.filter((f) => f.total > MAX_FUNCTION_LINES || f.own > MAX_OWN_LINES);
  assert.deepEqual(long, [], 'split these along their concepts (docs/conventions.md "Files follow concepts")');
});
