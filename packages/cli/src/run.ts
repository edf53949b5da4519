/**
 * The frame both CLIs run in: arguments in, output out, and every failure turned into one line on
 * stderr (plus a hint) and an exit code (errors.ts), never a stack trace (SVC_DEBUG=1 shows one).
 * Everything written passes a redactor, so a credential cannot reach the terminal or a CI log by
 * accident, whatever a server or an error message contains, and terminalSafe, so no string from a
 * server can act on the terminal. Colour (style.ts) and the fitting of tables (table.ts) come
 * after both, decided for each stream.
 */
import { CREDENTIAL_PATTERN } from '@svc/credentials';
import { CliError, EXIT } from './errors.ts';
import { colourWanted, paint, type Segment } from './style.ts';
import { renderTable, type Table } from './table.ts';
import { terminalSafe } from './terminal-safe.ts';

/** One thing to print: text, styled segments, or a table fitted when it is written. */
export type Line = string | Segment[] | Table;

export interface Io {
  env: NodeJS.ProcessEnv;
  /** Set by the command line: results as JSON on stdout. */
  json: boolean;
  out(text: Line): void;
  err(text: Line): void;
  /** Writes `text` to stdout unredacted: only for a credential the person asked to see (svc auth token). */
  secret(text: string): void;
  /** A command's result: `value` as JSON with --json, else the human lines. */
  result(value: unknown, lines: Line[]): void;
  /** Ends with `code` after the result was printed. */
  fail(code: number): void;
  /** Called once when the process is asked to stop (Ctrl-C, SIGTERM): long-running commands end cleanly. */
  onStop(stop: () => void): void;
}

const redact = (text: string) =>
  terminalSafe(text).replace(CREDENTIAL_PATTERN, (_m, prefix: string, first: string) => `${prefix}${first}…`);

/** How wide stdout is: the terminal's columns, else $COLUMNS, else unbounded (a pipe or a file: nothing is cut). */
function widthOf(stream: { isTTY?: boolean; columns?: number }, env: NodeJS.ProcessEnv): number {
  if (stream.isTTY && stream.columns) return stream.columns;
  const columns = Number(env['COLUMNS']);
  return Number.isInteger(columns) && columns > 0 ? columns : Infinity;
}

/** A writer of lines to `stream`, with its own colour and width. */
function writer(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv) {
  const colour = colourWanted(stream.isTTY, env);
  const text = (line: Line): string => {
    if (typeof line === 'string') return redact(line);
    if (Array.isArray(line)) return line.map((s) => paint(redact(s.text), s.style, colour)).join('');
    return renderTable(line, { width: widthOf(stream, env), colour, now: Date.now(), safe: redact }).join('\n');
  };
  return (line: Line) => void stream.write(`${text(line)}\n`);
}

export async function run(main: (io: Io, argv: string[]) => Promise<void>, name = 'svc'): Promise<void> {
  let exitCode: number = EXIT.ok;
  const out = writer(process.stdout, process.env);
  const err = writer(process.stderr, process.env);
  const io: Io = {
    env: process.env,
    json: false,
    out,
    err,
    secret: (text) => void process.stdout.write(`${terminalSafe(text)}\n`),
    result(value, lines) {
      if (io.json) io.out(JSON.stringify(value, null, 2));
      else for (const line of lines) io.out(line);
    },
    fail(code) {
      exitCode = code;
    },
    onStop(stop) {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, stop);
    },
  };
  try {
    await main(io, process.argv.slice(2));
  } catch (e) {
    if (e instanceof CliError) {
      io.err([{ text: `${name}:`, style: 'red' }, { text: ` ${e.message}` }]);
      if (e.hint) io.err(e.hint);
      exitCode = e.exitCode;
    } else {
      io.err([{ text: `${name}:`, style: 'red' }, { text: ` unexpected error: ${(e as Error).message ?? String(e)}` }]);
      if (process.env['SVC_DEBUG']) io.err(String((e as Error).stack));
      exitCode = EXIT.failed;
    }
  }
  process.exitCode = exitCode;
}
