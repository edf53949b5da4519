/**
 * CliError: a failure the person at the terminal can act on. main() prints its message (and hint)
 * on stderr and exits with its code; nothing else ever reaches the terminal as a stack trace.
 */
export const EXIT = {
  ok: 0,
  /** The server refused, a tool reported an error, or something unexpected. */
  failed: 1,
  /** A command line that cannot be run (unknown command, missing option, bad value). */
  usage: 2,
  /** No credential, or the credential was refused. */
  auth: 3,
  /** A server could not be reached. */
  unreachable: 4,
  /** A sign-in that was denied in the browser or expired before approval. */
  notApproved: 5,
} as const;

export class CliError extends Error {
  override name = 'CliError';
  readonly exitCode: number;
  readonly hint: string | undefined;

  constructor(message: string, exitCode: number = EXIT.failed, hint?: string) {
    super(message);
    this.exitCode = exitCode;
    this.hint = hint;
  }
}
