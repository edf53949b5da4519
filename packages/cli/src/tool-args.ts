/** Tool arguments from the command line of `svc call`. */
import { CliError, EXIT } from './errors.ts';

/** `--args '{"a":1}'` then each `--arg name=value` (a value that parses as JSON is taken as JSON). */
export function toolArguments(json: string | undefined, pairs: string[]): Record<string, unknown> {
  let args: Record<string, unknown> = {};
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      throw new CliError('--args is not valid JSON.', EXIT.usage, `Example: --args '{"query":"rotation","limit":5}'`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new CliError('--args must be a JSON object.', EXIT.usage);
    args = parsed as Record<string, unknown>;
  }
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq < 1) throw new CliError(`--arg ${pair}: expected name=value.`, EXIT.usage);
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // a plain string
    }
    args[pair.slice(0, eq)] = value;
  }
  return args;
}
