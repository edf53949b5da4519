/** What a `svc` command is (docs/cli.md), and the caller every command that speaks to the gateway uses. */
import type { ParseArgsConfig } from 'node:util';
import { SURFACES, isSurface, type Surface } from '@svc/policy';
import { CliError, EXIT } from './errors.ts';
import { baseUrlOf } from './hosts.ts';
import type { Io } from './run.ts';
import { credentialOf } from './store.ts';

export type Options = NonNullable<ParseArgsConfig['options']>;

export const GLOBAL: Options = {
  server: { type: 'string' },
  'auth-server': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
};

export interface Command {
  summary: string;
  usage: string;
  /** Lines describing the command's own options, for --help (given the environment, to name real URLs). */
  details?: string | ((env: NodeJS.ProcessEnv) => string);
  options: Options;
  /** The words the command takes first (`svc keys list`), for completion, help and "did you mean"; the dispatcher refuses any other. */
  subcommands?: readonly string[];
  run(io: Io, values: Record<string, unknown>, positionals: string[]): Promise<void>;
}

/** The key to present and the gateway to present it to: a stored key goes back to the server it came from, unless told otherwise. */
export async function callerOf(io: Io, v: Record<string, unknown>) {
  const cred = await credentialOf(io.env);
  const told = v['server'] !== undefined || io.env['SVC_BASE_URL'] !== undefined;
  const base = cred.stored && !told ? cred.stored.base_url : baseUrlOf({ server: v['server'] as string | undefined }, io.env);
  return { cred, base };
}

/** The --surface option: one of the surfaces, or none given. */
export function surfaceOf(v: Record<string, unknown>): Surface | undefined {
  const surface = v['surface'] as string | undefined;
  if (surface === undefined) return undefined;
  if (!isSurface(surface)) throw new CliError(`Unknown surface "${surface}": use ${SURFACES.join(', ')}.`, EXIT.usage);
  return surface;
}
