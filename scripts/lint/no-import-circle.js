// The ESLint rule `local/no-import-circle` (eslint.config.js; docs/conventions.md "Layers"): no
// import of a file may lead back to it, whatever the import's kind. import-x/no-cycle skips
// `import type` (and a declaration whose names are all types) with no option to count them, yet a
// circle of types is as tangled to read as one of values: the files cannot be understood, moved or
// split apart. Here every import counts: value and type imports, `export ... from`, `import()`
// and `import('x').T` types. Imports are resolved as import-x resolves them (tsconfig.json, the
// workspace packages' src/index.ts); anything under node_modules is outside.
import { readFileSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import ts from 'typescript';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

/** The repository's own files a file imports, resolved, by file; kept while the file's mtime holds. */
const edges = new Map();

/** The rule: one resolver, one cache of edges, for the whole lint run. */
export function noImportCircle({ root, project }) {
  const resolver = createTypeScriptImportResolver({ project });

  /** The file `specifier` of `from` names, when it is one of ours. */
  function resolveOwn(specifier, from) {
    const found = resolver.resolve(specifier, from);
    if (!found.found || !found.path || found.path.includes('/node_modules/')) return null;
    return found.path.endsWith('.ts') ? found.path : null;
  }

  /** The files `file` imports, read from its text (ts.preProcessFile sees every import form). */
  function importsOf(file) {
    let mtime;
    try {
      mtime = statSync(file).mtimeMs;
    } catch {
      return [];
    }
    const known = edges.get(file);
    if (known && known.mtime === mtime) return known.targets;
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = [...new Set(importedFiles.map((f) => resolveOwn(f.fileName, file)).filter(Boolean))];
    edges.set(file, { mtime, targets });
    return targets;
  }

  /** A way from `start` back to `file` (start first), or null; `dead` holds files known to have none. */
  function wayBack(start, file, dead) {
    const cameFrom = new Map([[start, null]]);
    const queue = [start];
    while (queue.length > 0) {
      const at = queue.shift();
      for (const next of importsOf(at)) {
        if (next === file) {
          const way = [];
          for (let step = at; step !== null; step = cameFrom.get(step)) way.unshift(step);
          return way;
        }
        if (cameFrom.has(next) || dead.has(next)) continue;
        cameFrom.set(next, at);
        queue.push(next);
      }
    }
    for (const seen of cameFrom.keys()) dead.add(seen);
    return null;
  }

  return {
    meta: {
      type: 'problem',
      docs: { description: 'Forbid an import that leads back to its own file, type-only imports included' },
      schema: [],
      messages: { circle: 'Import circle (type imports count): {{way}}' },
    },
    create(context) {
      const file = context.physicalFilename;
      const dead = new Set();
      const check = (node, specifier) => {
        if (typeof specifier !== 'string') return;
        const target = resolveOwn(specifier, file);
        if (!target || target === file) return;
        const way = wayBack(target, file, dead);
        if (way)
          context.report({ node, messageId: 'circle', data: { way: [file, ...way, file].map((f) => relative(root, f)).join(' -> ') } });
      };
      return {
        ImportDeclaration: (node) => check(node, node.source.value),
        ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
        ExportAllDeclaration: (node) => check(node, node.source.value),
        ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
        TSImportType: (node) => {
          const literal = node.argument?.literal ?? node.argument;
          if (literal?.type === 'Literal') check(node, literal.value);
        },
      };
    },
  };
}
