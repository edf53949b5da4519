/**
 * The frame both CLIs run in: arguments in, output out, and every failure turned into one line on
 * stderr (plus a hint) and an exit code (errors.ts), never a stack trace (SVC_DEBUG=1 shows one).
 * Everything written passes a redactor, so a credential cannot reach the terminal or a CI log by
 * accident, whatever a server or an error message contains, and terminalSafe, so no string from a
 * server can act on the terminal.
 */
import { CREDENTIAL_PATTERN } from '@svc/credentials';
import { CliError, EXIT } from './errors.ts';
import { terminalSafe } from './terminal-safe.ts';

export interface Io {
  env: NodeJS.ProcessEnv;
  /** Set by the command line: results as JSON on stdout. */
  json: boolean;
  out(text: string): void;
  err(text: string): void;
  /** Writes `text` to stdout unredacted: only for a credential the person asked to see (svc auth token). */
  secret(text: string): void;
  /** A command's result: `value` as JSON with --json, else the human lines. */
  result(value: unknown, lines: string[]): void;
  /** Ends with `code` after the result was printed. */
  fail(code: number): void;
}

const redact = (text: string) =>
  terminalSafe(text).replace(CREDENTIAL_PATTERN, (_m, prefix: string, first: string) => `${prefix}${first}…`);

export async function run(main: (io: Io, argv: string[]) => Promise<void>, name = 'svc'): Promise<void> {
  let exitCode: number = EXIT.ok;
  const io: Io = {
    env: process.env,
    json: false,
    out: (text) => void process.stdout.write(`${redact(text)}\n`),
    err: (text) => void process.stderr.write(`${redact(text)}\n`),
    secret: (text) => void process.stdout.write(`${terminalSafe(text)}\n`),
    result(value, lines) {
      if (io.json) io.out(JSON.stringify(value, null, 2));
      else if (lines.length) io.out(lines.join('\n'));
    },
    fail(code) {
      exitCode = code;
    },
  };
  try {
    await main(io, process.argv.slice(2));
  } catch (err) {
    if (err instanceof CliError) {
      io.err(`${name}: ${err.message}`);
      if (err.hint) io.err(err.hint);
      exitCode = err.exitCode;
    } else {
      io.err(`${name}: unexpected error: ${(err as Error).message ?? String(err)}`);
      if (process.env['SVC_DEBUG']) io.err(String((err as Error).stack));
      exitCode = EXIT.failed;
    }
  }
  process.exitCode = exitCode;
}
