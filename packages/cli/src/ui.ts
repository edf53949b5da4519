/**
 * What the person at the terminal sees while a device flow waits: on a terminal, a spinner with
 * the time left on one rewritten line of stderr; elsewhere (CI logs, pipes), a plain line now and
 * then. Results go to stdout; guidance and progress to stderr, so `--json` output stays parseable.
 */
import { terminalSafe } from './terminal-safe.ts';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface Waiting {
  /** Shows the time left until `deadline` (ms since epoch). */
  tick(deadline: number): void;
  note(line: string): void;
  stop(): void;
}

function minutesSeconds(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

export function waiting(stream: NodeJS.WriteStream = process.stderr): Waiting {
  const tty = stream.isTTY === true && !process.env['CI'];
  let frame = 0;
  let timer: NodeJS.Timeout | null = null;
  let deadline = 0;
  let lastPlain = 0;
  const draw = () => {
    frame = (frame + 1) % FRAMES.length;
    stream.write(`\r\x1b[2K${FRAMES[frame]} Waiting for approval in the browser… ${minutesSeconds(deadline - Date.now())} left`);
  };
  return {
    tick(d) {
      deadline = d;
      if (tty) {
        timer ??= setInterval(draw, 100);
        return;
      }
      if (Date.now() - lastPlain >= 60_000) {
        lastPlain = Date.now();
        stream.write(`Waiting for approval in the browser (${minutesSeconds(deadline - Date.now())} left)…\n`);
      }
    },
    note(line) {
      stream.write(tty ? `\r\x1b[2K${terminalSafe(line)}\n` : `${terminalSafe(line)}\n`);
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
      if (tty) stream.write('\r\x1b[2K');
    },
  };
}
