/**
 * Builds a package that is published to the npm registry into its dist/ (docs/publishing.md).
 * Inside the workspace Node runs the TypeScript sources as they are, but Node refuses to strip
 * types under node_modules, so what an adopter installs is JavaScript, bundled by esbuild with the
 * workspace packages it imports inside it: nothing of it names an unpublished @svc/* package.
 *
 *   ./scripts/node scripts/build-package.ts cli      packages/cli/dist/svc.js and create-svc.js
 *   ./scripts/node scripts/build-package.ts client   packages/client/dist/index.js and index.d.ts
 *
 * Each package's `prepack` runs it, so `pnpm pack` in the package's folder builds first.
 */
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateDtsBundle } from 'dts-bundle-generator';
import { build } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '..');

/** The oldest Node the bundles are built for (their `engines`): 20, the Node Debian 13 ships. */
const TARGET = 'node20';

/** What both packages carry besides dist/: the repository's licence. */
async function licence(dir: string): Promise<void> {
  await copyFile(join(ROOT, 'LICENSE'), join(dir, 'LICENSE'));
}

/**
 * svc and create-svc, each one ES module with everything it imports (the `open` package
 * included), so `npm install -g` needs no registry and the package declares no dependencies.
 */
async function buildCli(): Promise<void> {
  const dir = join(ROOT, 'packages/cli');
  await rm(join(dir, 'dist'), { recursive: true, force: true });
  await build({
    entryPoints: { svc: join(dir, 'src/svc.ts'), 'create-svc': join(dir, 'src/create-svc.ts') },
    outdir: join(dir, 'dist'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: TARGET,
    banner: { js: '#!/usr/bin/env node' },
    legalComments: 'inline',
    logLevel: 'warning',
  });
  await licence(dir);
}

/**
 * @svc/client: the client as one ES module for Node (the contract's bounds use node:net) and
 * one declaration file. dts-bundle-generator inlines the declarations of the workspace packages
 * and of json-schema-to-ts, whose FromSchema derives the request and answer types, so the .d.ts
 * imports nothing and the package has no dependencies.
 */
async function buildClient(): Promise<void> {
  const dir = join(ROOT, 'packages/client');
  const entry = join(dir, 'src/index.ts');
  await rm(join(dir, 'dist'), { recursive: true, force: true });
  await build({
    entryPoints: [entry],
    outfile: join(dir, 'dist/index.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: TARGET,
    logLevel: 'warning',
  });
  const tmp = await mkdtemp(join(tmpdir(), 'svc-client-dts-'));
  try {
    // The root tsconfig with the workspace packages mapped to their sources: reached through
    // node_modules, TypeScript takes them for an external library and emits no declarations for them.
    const tsconfig = join(tmp, 'tsconfig.json');
    const compilerOptions = { paths: await workspacePaths(), typeRoots: [join(ROOT, 'node_modules/@types')] };
    await writeFile(tsconfig, JSON.stringify({ extends: join(ROOT, 'tsconfig.json'), compilerOptions, files: [entry] }));
    const [dts] = generateDtsBundle(
      [{ filePath: entry, libraries: { inlinedLibraries: ['json-schema-to-ts', 'ts-algebra'] }, output: { noBanner: true } }],
      { preferredConfigPath: tsconfig },
    );
    if (!dts) throw new Error('dts-bundle-generator wrote no declarations');
    await writeFile(join(dir, 'dist/index.d.ts'), dts);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  await licence(dir);
}

/** Every export of every workspace package (`@svc/accounts/pages.ts`) to its source file, as tsconfig `paths`. */
async function workspacePaths(): Promise<Record<string, string[]>> {
  const paths: Record<string, string[]> = {};
  for (const folder of await readdir(join(ROOT, 'packages'))) {
    const text = await readFile(join(ROOT, 'packages', folder, 'package.json'), 'utf8').catch(() => null);
    if (text === null) continue;
    const pkg = JSON.parse(text) as { name: string; exports?: Record<string, unknown> };
    for (const [sub, target] of Object.entries(pkg.exports ?? {})) {
      if (typeof target === 'string') paths[pkg.name + sub.slice(1)] = [join(ROOT, 'packages', folder, target)];
    }
  }
  return paths;
}

const BUILDS: Record<string, () => Promise<void>> = { cli: buildCli, client: buildClient };

const name = process.argv[2] ?? '';
const run = BUILDS[name];
if (!run) {
  process.stderr.write(`usage: scripts/build-package.ts ${Object.keys(BUILDS).join('|')}\n`);
  process.exit(2);
}
await run();
