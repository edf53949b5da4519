/**
 * Where svc-admin gets a password from: standard input (`--password-stdin`, for scripts) or a
 * prompt on the terminal with echo off. Never from the command line, where `ps`, shell history and
 * pnpm's echo of the command would show it (docs/operations.md "svc-admin").
 */
import { createInterface } from 'node:readline';
import { UsageError } from './command-kit.ts';

export type PasswordSource = 'stdin' | 'prompt' | 'none';

/** How this invocation can be given a password. */
export function passwordSource(options: { 'password-stdin'?: unknown }, stdin: NodeJS.ReadStream = process.stdin): PasswordSource {
  if (options['password-stdin'] === true) return 'stdin';
  return stdin.isTTY ? 'prompt' : 'none';
}

/** Reads everything on standard input; the password is its first line. */
async function fromStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stdin) text += String(chunk);
  return text.split(/\r?\n/)[0] ?? '';
}

/** One line typed on the terminal, not echoed. */
function hidden(question: string, stdin: NodeJS.ReadStream, stderr: NodeJS.WriteStream): Promise<string> {
  return new Promise((resolve, reject) => {
    stderr.write(question);
    const rl = createInterface({ input: stdin, terminal: true, output: undefined });
    stdin.setRawMode?.(true);
    rl.once('line', (line) => {
      stdin.setRawMode?.(false);
      rl.close();
      stderr.write('\n');
      resolve(line);
    });
    rl.once('SIGINT', () => {
      stdin.setRawMode?.(false);
      rl.close();
      reject(new UsageError('cancelled; nothing was changed'));
    });
  });
}

/** The password from `source`, or null for 'none'. A prompt asks twice and insists they match. */
export async function readPassword(source: PasswordSource, stdin = process.stdin, stderr = process.stderr): Promise<string | null> {
  if (source === 'none') return null;
  if (source === 'stdin') return fromStdin(stdin);
  const first = await hidden('Password: ', stdin, stderr);
  const again = await hidden('Repeat the password: ', stdin, stderr);
  if (first !== again) throw new UsageError('the two passwords differ; nothing was changed');
  return first;
}
