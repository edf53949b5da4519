/**
 * Pages are built by the renderer only (docs/auth-service.md "Pages"): in the auth-service's
 * source, markup is written in html`` templates, never in a plain string or template literal;
 * no module keeps a hand-written escaper; raw markup goes through trustedHtml() only where it is
 * reviewed; and a page is sent only by render() (or, inside oidc-provider, as the renderer's text).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const SRC = join(import.meta.dirname, '../src');
/** The renderer itself: where escaping and the one raw-markup helper live. */
const RENDERER = 'ui/html.ts';
/** An element's start or end tag, or a doctype: markup. `<project_slug>` in a message is not. */
const MARKUP = /<\/?[a-z][a-z0-9]*[\s/>]|<!doctype/i;
/** The reviewed constants passed to trustedHtml(): the two stylesheets and the dashboard's script. */
const TRUSTED_CALLS = { 'ui/layout.ts': 1, 'dashboard/frame.ts': 2 };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

interface Finding {
  file: string;
  line: number;
  what: string;
}

function scan(file: string): { untagged: Finding[]; escapers: Finding[]; trusted: number; sends: Finding[] } {
  const name = relative(SRC, file);
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out = { untagged: [] as Finding[], escapers: [] as Finding[], trusted: 0, sends: [] as Finding[] };
  const at = (node: ts.Node, what: string): Finding => ({
    file: name,
    line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
    what: what.slice(0, 100),
  });
  const inHtmlTag = (node: ts.Node) =>
    ts.isTaggedTemplateExpression(node.parent) && node.parent.tag.getText() === 'html' && node.parent.template === node;
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) && MARKUP.test(node.text) && !ts.isImportDeclaration(node.parent)) {
      out.untagged.push(at(node, node.text));
    }
    if (ts.isNoSubstitutionTemplateLiteral(node) && MARKUP.test(node.text) && !inHtmlTag(node)) out.untagged.push(at(node, node.text));
    if (ts.isTemplateExpression(node) && !inHtmlTag(node)) {
      const parts = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)];
      if (parts.some((p) => MARKUP.test(p))) out.untagged.push(at(node, node.getText()));
    }
    if ((ts.isFunctionDeclaration(node) || ts.isVariableDeclaration(node)) && node.name?.getText() === 'esc') {
      out.escapers.push(at(node, node.getText()));
    }
    if (ts.isCallExpression(node) && node.expression.getText() === 'trustedHtml') out.trusted++;
    if (ts.isCallExpression(node) && /\.type\(\s*'html'\s*\)$/.test(node.expression.getText().replace(/\.send$/, ''))) {
      out.sends.push(at(node, node.getText()));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

const files = sourceFiles(SRC).filter((f) => relative(SRC, f) !== RENDERER);
const scans = files.map((f) => ({ name: relative(SRC, f), ...scan(f) }));

test('no module of the auth-service writes markup outside an html`` template', () => {
  assert.ok(files.length > 40, 'the source tree was found');
  assert.deepEqual(
    scans.flatMap((s) => s.untagged),
    [],
  );
});

test('no module keeps a hand-written escaper: escaping lives in the renderer', () => {
  assert.deepEqual(
    scans.flatMap((s) => s.escapers),
    [],
  );
});

test('trustedHtml() is called only for the reviewed constants', () => {
  const calls = Object.fromEntries(scans.filter((s) => s.trusted > 0).map((s) => [s.name, s.trusted]));
  assert.deepEqual(calls, TRUSTED_CALLS);
});

test('an Express page is sent by render() alone', () => {
  assert.deepEqual(
    scans.flatMap((s) => s.sends),
    [],
  );
});
