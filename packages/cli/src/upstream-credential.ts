/**
 * The static credential svc sends an upstream MCP server (docs/upstream-servers.md "Register your
 * server"), as `svc upstreams add` and `update` take it (docs/cli.md "Upstream MCP servers"):
 * `--credential-header` names its header; its value comes from the environment
 * (CREDENTIAL_VARIABLE) or, with `--credential-stdin`, from a pipe; never from the command line,
 * which shell history and the process list keep. The value is sent once and never printed: the
 * server never shows it again, and no message here names it.
 */
import { MANAGEMENT_OPERATIONS } from '@svc/management/contract';
import { CliError, EXIT } from './errors.ts';
import { given, type Options } from './manage-common.ts';

/** The environment variable the value is read from when --credential-stdin is not given. */
export const CREDENTIAL_VARIABLE = 'SVC_UPSTREAM_CREDENTIAL';

/** The longest value the contract takes (its schema's maxLength); stdin is not read past it. */
const MAX_VALUE_LENGTH = MANAGEMENT_OPERATIONS.addUpstream.body.properties.credential.properties.value.maxLength;

const FROM = `in ${CREDENTIAL_VARIABLE}, or on stdin with --credential-stdin`;

export interface UpstreamCredential {
  header: string;
  value: string;
}

/** Reads a pipe to its end, refusing more than MAX_VALUE_LENGTH characters (and one line end) without reading on. */
async function readPipe(input: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of input) {
    text += String(chunk);
    if (text.length > MAX_VALUE_LENGTH + 2)
      throw new CliError(`The credential on stdin is longer than ${MAX_VALUE_LENGTH} characters.`, EXIT.usage);
  }
  return text;
}

/**
 * The credential the options ask for, or undefined when --credential-header is not given. Usage
 * errors (exit 2) before anything is sent: a value asked for from stdin that is a terminal (it
 * would be echoed), or no value where it was asked for.
 */
export async function upstreamCredential(
  v: Options,
  env: NodeJS.ProcessEnv,
  input: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin,
): Promise<UpstreamCredential | undefined> {
  const header = given(v, 'credential-header');
  const fromStdin = v['credential-stdin'] === true;
  if (header === undefined) {
    if (fromStdin)
      throw new CliError('--credential-stdin gives a value: name its header with --credential-header, e.g. X-Api-Key.', EXIT.usage);
    return undefined;
  }
  let value: string | undefined;
  if (fromStdin) {
    if (input.isTTY)
      throw new CliError(
        '--credential-stdin reads a pipe, not a terminal (where the value would be echoed).',
        EXIT.usage,
        `Pipe it in (printf '%s' "$TOKEN" | svc upstreams ...), or set ${CREDENTIAL_VARIABLE}.`,
      );
    // One line end is what `echo` adds, not part of the value.
    value = (await readPipe(input)).replace(/\r?\n$/, '');
  } else {
    value = env[CREDENTIAL_VARIABLE];
  }
  if (!value)
    throw new CliError(
      `--credential-header ${header} needs the credential's value ${FROM}.`,
      EXIT.usage,
      'Never on the command line: shell history and the process list keep it.',
    );
  return { header, value };
}
