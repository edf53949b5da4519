/**
 * Loaded with loop-guard.ts into every integration and e2e test process: a file whose process is
 * still held open a while after its after hooks began (a redis-server or a client a failed hook
 * left behind, reconnecting for ever) is ended, naming what held it, instead of hanging until the
 * runner's timeout and holding up the whole suite.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { after } from 'node:test';

/**
 * How long a test file's process may stay up once its after hooks began. Only something left open
 * keeps it up (the timer below does not): a Redis or a server that a before hook started before
 * it failed, which nothing can close any more. Then the file fails here, naming what is open,
 * instead of hanging until the runner's timeout.
 */
const LINGER_MS = 60_000;
after(() => {
  setTimeout(() => {
    const children = childrenOfThisProcess();
    process.stderr.write(
      `The test file's hooks ended ${LINGER_MS / 1000} s ago, but something it started still holds its process open ` +
        `(${process.getActiveResourcesInfo().join(', ')}): a server, Redis or child process left running, ` +
        `most likely by a before hook that failed half-way. Ending the process${children.length ? ` and its children ${children.join(', ')}` : ''}.\n`,
    );
    // Nothing holds a handle on what was left (a redis-server), so it is found by its parent:
    // ended with this process, it would outlive it.
    for (const pid of children) process.kill(pid, 'SIGKILL');
    process.exit(1);
  }, LINGER_MS).unref();
});

/** The ids of this process's child processes, from /proc (Linux; none elsewhere). */
function childrenOfThisProcess(): number[] {
  const parentOf = (pid: string) => {
    try {
      // proc(5): "pid (comm) state ppid ...", and comm may hold spaces and parentheses.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return undefined; // gone meanwhile
    }
  };
  try {
    return readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d) && parentOf(d) === process.pid)
      .map(Number);
  } catch {
    return [];
  }
}
