/**
 * Asking before a command that cannot be undone (docs/cli.md "Asking first"), as `gh repo delete`
 * does: on a terminal (stdin and stderr both TTYs, CI unset) the person types the name of what
 * goes; elsewhere nothing reads stdin, so a script says `--yes` or is refused before anything is
 * sent, and never waits for a key.
 */
import { createInterface } from 'node:readline';
import { CliError, EXIT } from './errors.ts';
import { terminalSafe } from './terminal-safe.ts';

export interface ConfirmOptions {
  /** What would be done, as a sentence's verb phrase: "remove upstream notes from demo". */
  action: string;
  /** What follows from it, one sentence: "Its tools stop being offered.". */
  consequence: string;
  /** The word the person types to confirm (the name of what goes). */
  name: string;
  /** The command line that does it without asking, named when there is no terminal to ask on. */
  withYes: string;
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  output?: NodeJS.WritableStream & { isTTY?: boolean };
  env?: NodeJS.ProcessEnv;
}

/** Resolves once the person typed `name`; a CliError when they typed anything else, or when there is no terminal to ask on. */
export async function confirmByName(opts: ConfirmOptions): Promise<void> {
  const input = opts.input ?? process.stdin;
  const output = opts.output ?? process.stderr;
  const env = opts.env ?? process.env;
  if (!input.isTTY || !output.isTTY || env['CI'])
    throw new CliError(
      `Nothing done: svc asks before it would ${opts.action}, and there is no terminal here to ask on.`,
      EXIT.usage,
      `To do it without being asked: ${opts.withYes}`,
    );
  const action = opts.action.charAt(0).toUpperCase() + opts.action.slice(1);
  // Through terminalSafe as every line the CLI writes (run.ts): the name is the caller's own words.
  output.write(terminalSafe(`${action}? ${opts.consequence}\nType ${opts.name} to confirm: `));
  const typed = await firstLine(input);
  if (typed?.trim() !== opts.name) throw new CliError(`Nothing done: ${opts.name} was not typed.`, EXIT.failed);
}

/** The first line typed, or null when the input ended first (Ctrl-D); stdin is released after. */
function firstLine(input: NodeJS.ReadableStream): Promise<string | null> {
  const lines = createInterface({ input, terminal: false });
  return new Promise((resolve) => {
    let answered = false;
    lines.once('line', (line) => {
      answered = true;
      resolve(line);
      lines.close();
    });
    lines.once('close', () => {
      if (!answered) resolve(null);
      if ('pause' in input && typeof input.pause === 'function') input.pause();
    });
  });
}
