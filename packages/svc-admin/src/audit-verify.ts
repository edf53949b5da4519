/**
 * `svc-admin audit verify <file|->` (docs/audit.md "Verifying an export"): checks an audit export
 * (the JSON lines of `GET /api/v1/workspaces/{workspace}/audit?format=jsonl` or the dashboard's
 * "Export as JSON lines") is complete, no seq missing between its first and last entry and its
 * closing line there, and unaltered, each entry hashing to its `hash` and naming the one before it.
 * It reads only the file (or standard input): no Redis, no configuration, so it runs anywhere.
 * Exit 0 for a sound export, 1 at the first broken entry (printed), 2 for a wrong command line.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { describeVerdict, verifyAuditExport } from '@svc/accounts/audit-chain.ts';

const USAGE = 'usage: svc-admin audit verify <file|-> [--anchor HASH] [--json]';

/** Runs the command over the whole command line (`audit verify` among its words); answers the exit code. */
export async function auditVerify(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { anchor: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    process.stderr.write(`svc-admin: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const file = parsed.positionals[2];
  if (parsed.values.help || file === undefined || parsed.positionals.length > 3) {
    process.stderr.write(`${USAGE}\n`);
    return parsed.values.help ? 0 : 2;
  }
  const input = file === '-' ? process.stdin : createReadStream(file);
  let verdict;
  try {
    const lines = createInterface({ input, crlfDelay: Infinity });
    verdict = await verifyAuditExport(lines, parsed.values.anchor === undefined ? {} : { anchor: parsed.values.anchor });
  } catch (err) {
    process.stderr.write(`svc-admin: audit verify: ${(err as Error).message}\n`);
    return 2;
  }
  if (parsed.values.json) process.stdout.write(`${JSON.stringify(verdict)}\n`);
  else (verdict.ok ? process.stdout : process.stderr).write(`${describeVerdict(verdict)}\n`);
  return verdict.ok ? 0 : 1;
}
