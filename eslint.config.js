// The linter is part of the style guide (docs/conventions.md "Comments and tooling").
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { noImportCircle } from './scripts/lint/no-import-circle.js';

/**
 * The layers of each service (docs/conventions.md "Layers"), lowest floor first: a folder (or a
 * file of src/ itself) may import what stands on a lower floor and nothing beside or above it.
 * `import type` counts as any import does. A folder that is on no floor may not be imported.
 */
const FLOORS = {
  'services/auth-service/src': [
    ['store', 'ui'],
    ['http'],
    ['oauth', 'sso'],
    ['provider', 'pages', 'scim'],
    ['factors'],
    ['dashboard'],
    ['mount-pages.ts'],
    ['app.ts'],
    ['server.ts'],
    ['main.ts'],
  ],
  'services/mcp-gateway/src': [
    ['http', 'mcp', 'metrics.ts', 'management-layer.ts'],
    ['tools', 'origins.ts'],
    ['auth'],
    ['ratelimit', 'methods'],
    ['pipeline'],
    ['rest', 'upstreams'],
    ['routes.ts'],
    ['request-handler.ts'],
    ['app.ts'],
    ['server.ts'],
    ['main.ts'],
  ],
};

/** One import-x/no-restricted-paths zone per folder or file of a floor: src/ is closed to it but for itself and the floors below. */
const LAYER_ZONES = Object.entries(FLOORS).flatMap(([src, floors]) =>
  floors.flatMap((floor, level) =>
    floor.map((part) => ({
      target: `${src}/${part}`,
      from: src,
      except: [part, ...floors.slice(0, level).flat()],
      message: `docs/conventions.md "Layers": ${src}/${part} stands on floor ${level + 1}; it imports only what stands below it.`,
    })),
  ),
);

export default tseslint.config(
  { ignores: ['**/node_modules/**', '.tools/**', 'test-output/**', '.data/**', 'packages/*/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // Type-aware rules: every .ts file is in tsconfig.json, which the project service reads.
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] }],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      // A switch over a union names every member, without a default that would hide a new one
      // (the policy gates, credential kinds, interaction kinds); any other switch has a default.
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { allowDefaultCaseForExhaustiveSwitch: false, requireDefaultForNonUnion: true },
      ],
    },
  },
  {
    // Imports point one way (docs/conventions.md "Layers"): relative .ts imports and the workspace
    // packages (@svc/*, which export their src/index.ts) are resolved the way tsconfig.json
    // resolves them. No circle, type imports included: import-x/no-cycle skips `import type` with
    // no option to count it (eslint-plugin-import-x 4.18), so the circle rule is our own
    // (scripts/lint/no-import-circle.js), with the same resolver.
    files: ['**/*.ts'],
    plugins: {
      'import-x': importX,
      local: { rules: { 'no-import-circle': noImportCircle({ root: import.meta.dirname, project: 'tsconfig.json' }) } },
    },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/internal-regex': '^@svc/',
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
    rules: {
      'local/no-import-circle': 'error',
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: LAYER_ZONES }],
    },
  },
  {
    files: ['services/*/src/**/*.ts', 'packages/*/src/**/*.ts'],
    ignores: ['packages/cli/**', 'packages/svc-admin/**'],
    rules: { 'no-console': 'error' },
  },
);
