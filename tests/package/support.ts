/**
 * What the package suites share (docs/publishing.md): a workspace package packed as it would be
 * published, and npm run as an adopter runs it, in folders outside the checkout. npm runs offline
 * with a cache of its own: the packages bundle what they import, so they install from their
 * tarball alone.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../cli/support.ts';

const run = promisify(execFile);

/** PATH with the Node running this test first: the `node` that `#!/usr/bin/env node` finds. */
export const NODE_PATH = `${join(process.execPath, '..')}:${process.env['PATH'] ?? ''}`;

/** Packs packages/<folder> into `dest` with pnpm (its prepack builds dist/ first); the tarball's path. */
export async function pack(folder: string, dest: string): Promise<string> {
  const { stdout } = await run(join(ROOT, 'scripts/pnpm'), ['pack', '--pack-destination', dest], {
    cwd: join(ROOT, 'packages', folder),
    maxBuffer: 1 << 20,
  });
  const tarball = stdout.trim().split('\n').at(-1) ?? '';
  if (!tarball.endsWith('.tgz')) throw new Error(`pnpm pack named no tarball: ${stdout}`);
  return tarball;
}

/** Runs npm in `cwd`, offline, with its cache under `cache`; what it printed. */
export async function npm(args: string[], cwd: string, cache: string): Promise<string> {
  const { stdout } = await run('npm', [...args, '--offline', '--no-audit', '--no-fund', '--cache', cache], {
    cwd,
    env: { PATH: NODE_PATH, HOME: cache },
    maxBuffer: 1 << 20,
  });
  return stdout;
}
