/**
 * podman for the image smoke test, with the project's containers.conf (docs/operations.md "Image"),
 * run without blocking the event loop.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
const CONTAINERS_CONF = process.env['CONTAINERS_CONF'] || resolve(ROOT, 'scripts/image/containers.conf');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; `input` is written to its standard input. */
export function run(command: string, args: string[], input?: string): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, CONTAINERS_CONF }, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** podman ARGS; its standard output, or an error carrying its standard error. */
export async function podman(args: string[], input?: string): Promise<string> {
  const r = await run('podman', args, input);
  if (r.code !== 0) throw new Error(`podman ${args.slice(0, 3).join(' ')} … exited ${r.code}: ${r.stderr.slice(-1500)}`);
  return r.stdout;
}

/** Whether a program is on PATH. */
export async function installed(program: string): Promise<boolean> {
  return (await run('sh', ['-c', `command -v ${program}`])).code === 0;
}
