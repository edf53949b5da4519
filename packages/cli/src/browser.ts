/**
 * "Press Enter to open the browser" (docs/cli.md "svc login"): while a device flow waits, a person
 * at a terminal can press Enter to open the verification page instead of copying the address.
 * Offered only when both stdin and stderr are terminals and not in CI; elsewhere nothing reads
 * stdin, so a piped or scripted run never waits for a key.
 */
import { createInterface } from 'node:readline';
import open from 'open';

export interface BrowserOffer {
  /** The line to show under the address, or null when nothing is offered. */
  readonly prompt: string | null;
  /** Stops listening (the flow ended); stdin is released so the process can exit. */
  close(): void;
}

export interface OfferOptions {
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  output?: { isTTY?: boolean };
  env?: NodeJS.ProcessEnv;
  /** Opens `url` in the default browser; the `open` package unless a test gives another. */
  opener?: (url: string) => Promise<unknown>;
  /** Told when the browser could not be opened, with a line for the person. */
  onNote?: (line: string) => void;
}

export function offerToOpen(url: string, opts: OfferOptions = {}): BrowserOffer {
  const input = opts.input ?? process.stdin;
  const output = opts.output ?? process.stderr;
  const env = opts.env ?? process.env;
  if (!input.isTTY || !output.isTTY || env['CI']) return { prompt: null, close() {} };
  const opener = opts.opener ?? ((u: string) => open(u, { wait: false }));
  const lines = createInterface({ input, terminal: false });
  let opened = false;
  lines.on('line', () => {
    if (opened) return;
    opened = true;
    opener(url).catch(() => opts.onNote?.(`Could not open a browser here; open ${url} yourself.`));
  });
  return {
    prompt: 'Press Enter to open it in your browser.',
    close() {
      lines.close();
      if ('pause' in input && typeof input.pause === 'function') input.pause();
    },
  };
}
