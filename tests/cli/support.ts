/**
 * Runs the installed bins (node_modules/.bin/svc and create-svc, exactly what a person runs) as
 * child processes, with a private config directory, and collects what they print.
 *
 * No run can hang a test file (docs/conventions.md "Nothing is left behind"): each child is killed
 * once it has run RUN_BOUND_MS without exiting, and its result then says so; a child still running
 * when its test ends (an assertion failed before the test stopped it) is killed there, and the
 * test fails naming it; stdin is /dev/null unless the run is given input, which is written and
 * closed at once, so nothing waits for a key.
 */
import { spawn, type ChildProcess } from 'node:child_process';

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { after, afterEach } from 'node:test';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = { svc: join(ROOT, 'node_modules/.bin/svc'), createSvc: join(ROOT, 'node_modules/.bin/create-svc') };

/**
 * The longest one run may take: a command answers in seconds, a sign-in waits for a browser in
 * the same test. Below the test runner's own timeout (scripts/test.sh), so a run that hangs fails
 * its test by name, with what it printed, instead of the whole file timing out.
 */
export const RUN_BOUND_MS = 90_000;

export interface Exit {
  /** The exit code; null when the child was killed (by its bound, the test's end, or a test). */
  code: number | null;
  stdout: string;
  /** What the child wrote to stderr, then, when it was killed by its bound, a line saying so. */
  stderr: string;
  /** Whether it was killed for running past its bound. */
  timedOut: boolean;
}

export interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the first match of `pattern` in stderr; rejects, naming the pattern, if the child exits first. */
  waitForStderr(pattern: RegExp): Promise<RegExpMatchArray>;
  exit: Promise<Exit>;
}

export interface RunOptions {
  /** Written to the child's stdin, which is then closed (default: stdin is /dev/null). */
  input?: string;
  /** Kill the child after this many ms (default RUN_BOUND_MS). */
  boundMs?: number;
}

/** The children started and not yet exited, with the line that names each in a failure. */
const running = new Map<ChildProcess, string>();

/** Kills every child still running and waits for each to be gone; returns the names of those it killed. */
async function killRunning(): Promise<string[]> {
  const left = [...running];
  await Promise.all(
    left.map(([child]) => {
      const gone = new Promise((done) => child.once('close', done));
      child.kill('SIGKILL');
      return gone;
    }),
  );
  return left.map(([, name]) => name);
}

// A child still running at the end of its test is that test's failure, never the next test's wait.
afterEach(async () => {
  const killed = await killRunning();
  if (killed.length) throw new Error(`still running at the end of the test, killed: ${killed.join('; ')}`);
});
// A child started outside a test (a before hook) is stopped with the file.
after(killRunning);
// And none outlives this process, however it ends.
process.on('exit', () => {
  for (const child of running.keys()) child.kill('SIGKILL');
});

export function start(bin: string, args: string[], env: Record<string, string>, cwd = ROOT, options: RunOptions = {}): Run {
  const child = spawn(bin, args, {
    cwd,
    env: { PATH: process.env['PATH'] ?? '', HOME: env['HOME'] ?? tmpdir(), ...env },
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  const name = `${basename(bin)} ${args.join(' ')}`;
  running.set(child, name);
  if (options.input !== undefined) child.stdin!.end(options.input);
  let out = '';
  let err = '';
  let timedOut = false;
  const boundMs = options.boundMs ?? RUN_BOUND_MS;
  const bound = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, boundMs);
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
  const exit = new Promise<Exit>((done) => {
    const finish = (code: number | null) => {
      clearTimeout(bound);
      running.delete(child);
      const note = timedOut ? `\n[${name}: killed after running ${boundMs} ms without exiting]` : '';
      done({ code, stdout: out, stderr: err + note, timedOut });
    };
    child.on('close', finish);
    // A bin that cannot be started (missing, not executable) emits 'error' and no 'close'.
    child.on('error', (e) => {
      err += `\n[${name}: ${e.message}]`;
      finish(null);
    });
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitForStderr(pattern) {
      const m = err.match(pattern);
      if (m) return Promise.resolve(m);
      return new Promise((resolveMatch, reject) => {
        waiters.push({ pattern, resolve: resolveMatch });
        void exit.then((r) => reject(new Error(`${name} ended (exit ${r.code}) before printing ${pattern}:\n${r.stderr}${r.stdout}`)));
      });
    },
    exit,
  };
}

/** Runs a bin to its end (or its bound) and gives what it printed. */
export async function runToEnd(bin: string, args: string[], env: Record<string, string>, cwd = ROOT, options: RunOptions = {}) {
  return start(bin, args, env, cwd, options).exit;
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
