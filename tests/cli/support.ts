/**
 * Runs the installed bins (node_modules/.bin/svc and create-svc, exactly what a person runs) as
 * child processes, with a private config directory, and collects what they print.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after } from 'node:test';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = { svc: join(ROOT, 'node_modules/.bin/svc'), createSvc: join(ROOT, 'node_modules/.bin/create-svc') };

export interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the first match of `pattern` in stderr. */
  waitForStderr(pattern: RegExp): Promise<RegExpMatchArray>;
  exit: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

export function start(bin: string, args: string[], env: Record<string, string>, cwd = ROOT): Run {
  const child = spawn(bin, args, {
    cwd,
    env: { PATH: process.env['PATH'] ?? '', HOME: env['HOME'] ?? tmpdir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    for (const w of [...waiters]) {
      const m = err.match(w.pattern);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  });
  const exit = new Promise<{ code: number | null; stdout: string; stderr: string }>((done) =>
    child.on('close', (code) => done({ code, stdout: out, stderr: err })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitForStderr(pattern) {
      const m = err.match(pattern);
      if (m) return Promise.resolve(m);
      return new Promise((resolveMatch, reject) => {
        waiters.push({ pattern, resolve: resolveMatch });
        void exit.then((r) => reject(new Error(`exited ${r.code} before printing ${pattern}: ${r.stderr}${r.stdout}`)));
      });
    },
    exit,
  };
}

export async function runToEnd(bin: string, args: string[], env: Record<string, string>, cwd = ROOT) {
  return start(bin, args, env, cwd).exit;
}

const tempDirs: string[] = [];
// Every directory tempDir() made is removed once the test file is done (its bins may still be
// writing there until their test ends).
after(() => Promise.all(tempDirs.map((d) => rm(d, { recursive: true, force: true }))));

/** A new empty directory under the system's temp dir, removed after this test file. */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `svc-cli-${prefix}-`));
  tempDirs.push(dir);
  return dir;
}
