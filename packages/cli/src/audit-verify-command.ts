/**
 * `svc audit verify <file|->` (docs/cli.md, docs/audit.md "Verifying an export"): checks an audit
 * export (`svc api GET "/api/v1/workspaces/W/audit?format=jsonl"`, or the dashboard's "Export as
 * JSON lines") is complete (no seq missing between its first and last entry, its closing line
 * there) and unaltered (each entry hashes to its `hash` and names the one before it), without a
 * credential or a server: the file is all it reads. Exit 0 for a sound export, 1 at the first
 * broken entry, which it names. `svc audit` without `verify` lists the log, as before.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { describeVerdict, verifyAuditExport } from '@svc/accounts/audit-chain.ts';
import type { Command } from './command.ts';
import { CliError, EXIT } from './errors.ts';

const USAGE = 'svc audit verify <file|-> [--anchor HASH] [--json]';

/** `svc audit` with `verify` beside the listing: the listing's options and run, and the verifier's. */
export function withAuditVerify(list: Command): Command {
  return {
    ...list,
    summary: `${list.summary}; verify: check an export is complete and unaltered`,
    usage: `${list.usage}\n       ${USAGE}`,
    details: `${typeof list.details === 'string' ? `${list.details}\n` : ''}  verify FILE         check an export (JSON lines; - for stdin) is complete and unaltered: no server, no credential
  --anchor HASH       with verify: the prev the export's first entry must carry (the last hash an earlier verify printed)`,
    options: { ...list.options, anchor: { type: 'string' } },
    subcommands: ['verify'],
    async run(io, v, positionals) {
      if (positionals[0] !== 'verify') {
        if (v['anchor'] !== undefined) throw new CliError('--anchor goes with svc audit verify.', EXIT.usage, `Usage: ${USAGE}`);
        return list.run(io, v, positionals);
      }
      const file = positionals[1];
      if (file === undefined || positionals.length > 2)
        throw new CliError('Which export? Give one file, or - for stdin.', EXIT.usage, `Usage: ${USAGE}`);
      const anchor = v['anchor'] as string | undefined;
      let verdict;
      try {
        const input = file === '-' ? process.stdin : createReadStream(file);
        verdict = await verifyAuditExport(createInterface({ input, crlfDelay: Infinity }), anchor === undefined ? {} : { anchor });
      } catch (err) {
        throw new CliError(`audit verify: ${(err as Error).message}`, EXIT.usage, `Usage: ${USAGE}`);
      }
      if (verdict.ok || io.json) io.result(verdict, [describeVerdict(verdict)]);
      else io.err(describeVerdict(verdict));
      if (!verdict.ok) io.fail(EXIT.failed);
    },
  };
}
