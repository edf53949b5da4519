/** The TypeScript sources of every service and package (not their tests), for the repository's layout checks. */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every `.ts` file under `services/*\/src` and `packages/*\/src`, its path relative to the repository. */
export async function sourceFiles(): Promise<{ path: string; text: string }[]> {
  const out: { path: string; text: string }[] = [];
  for (const tier of ['services', 'packages']) {
    for (const dir of await readdir(join(ROOT, tier))) {
      const src = join(ROOT, tier, dir, 'src');
      const files = await readdir(src, { recursive: true }).catch(() => [] as string[]);
      for (const f of files.filter((name) => name.endsWith('.ts')))
        out.push({ path: relative(ROOT, join(src, f)), text: await readFile(join(src, f), 'utf8') });
    }
  }
  return out;
}
