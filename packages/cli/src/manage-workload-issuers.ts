/**
 * `svc workload-issuers list|add|remove <id>` (docs/cli.md "Managing a project";
 * docs/workload-identity.md): the issuers whose workload tokens (GitHub Actions, a Kubernetes
 * cluster, a SPIFFE trust domain) become tokens of the workspace's service accounts, with their
 * rules, over the management API.
 */
import { readFile } from 'node:fs/promises';
import { parseRuleSpecs, WORKLOAD_ISSUER_KINDS, type WorkloadIssuerKind } from '@svc/accounts/workload-rules.ts';
import { CliError, EXIT } from './errors.ts';
import { answer, api, given, need, workspaceOf, type Caller, type Options } from './manage-common.ts';
import type { Io } from './run.ts';
import { columns } from './table.ts';

type Rule = { service_account: string; claims: Record<string, string> };

const ruleText = (r: Rule) =>
  `${r.service_account}=${Object.entries(r.claims)
    .map(([k, p]) => `${k}:${p}`)
    .join(',')}`;

async function jwksFrom(file: string): Promise<{ keys: Record<string, unknown>[] }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new CliError(`Cannot read ${file}.`, EXIT.usage);
  }
  try {
    return JSON.parse(text) as { keys: Record<string, unknown>[] };
  } catch {
    throw new CliError(`${file} is not JSON: give a public JWK Set, {"keys": [...]}.`, EXIT.usage);
  }
}

/** The body of `add` from the options. */
async function addBody(v: Options) {
  const kind = need(v, 'kind', `--kind ${WORKLOAD_ISSUER_KINDS.join('|')}`);
  if (!(WORKLOAD_ISSUER_KINDS as readonly string[]).includes(kind))
    throw new CliError(`--kind is one of ${WORKLOAD_ISSUER_KINDS.join(', ')}.`, EXIT.usage);
  let rules: Rule[];
  try {
    rules = parseRuleSpecs(need(v, 'rule', "--rule 'bot_ID=repository:OWNER/REPO,ref:refs/heads/main'")).map((r) => ({
      service_account: r.serviceAccount,
      claims: r.claims,
    }));
  } catch (err) {
    throw new CliError(`--rule: ${(err as Error).message}`, EXIT.usage);
  }
  const file = given(v, 'jwks-file');
  const uri = given(v, 'jwks-uri');
  if (file !== undefined && uri !== undefined) throw new CliError('Give one of --jwks-file or --jwks-uri, not both.', EXIT.usage);
  const issuer = given(v, 'issuer');
  const audience = given(v, 'audience');
  return {
    kind: kind as WorkloadIssuerKind,
    rules,
    ...(issuer === undefined ? {} : { issuer }),
    ...(audience === undefined ? {} : { audience }),
    ...(uri === undefined ? {} : { jwks_uri: uri }),
    ...(file === undefined ? {} : { jwks: await jwksFrom(file) }),
  };
}

export async function workloadIssuersCommand(io: Io, c: Caller, v: Options, args: string[]): Promise<void> {
  const [sub, id] = args;
  const params = { workspace: await workspaceOf(c, v) };
  switch (sub ?? 'list') {
    case 'list': {
      const { workload_issuers: listed } = await answer(api(c).listWorkloadIssuers({ params }), 'workload-issuers list');
      const rows = listed.map((w) => ({ ...w, audience: w.audience ?? '(auth URL)', rule_text: w.rules.map(ruleText).join('; ') }));
      return io.result(
        { workload_issuers: listed },
        rows.length
          ? columns(rows, [
              ['id', 'ID'],
              ['kind', 'KIND'],
              ['issuer', 'ISSUER', { free: true }],
              ['audience', 'AUDIENCE', { free: true }],
              ['rule_text', 'RULES (SERVICE ACCOUNT=CLAIM:PATTERN)', { free: true }],
            ])
          : [
              "No workload issuers. Trust GitHub Actions: svc workload-issuers add --kind github-actions --rule 'bot_ID=repository:OWNER/REPO'",
            ],
      );
    }
    case 'add': {
      const w = await answer(api(c).addWorkloadIssuer({ params, body: await addBody(v) }), 'workload-issuers add');
      return io.result(w, [
        `Workload issuer ${w.issuer} (${w.kind}, id ${w.id}) trusted with ${w.rules.length} rule(s).`,
        `Its tokens must name the audience ${w.audience ?? 'of the auth URL'}; trade them at the token endpoint with client_id=svc-workload.`,
      ]);
    }
    case 'remove': {
      if (!id) throw new CliError('Which issuer? svc workload-issuers remove <id> (ids: svc workload-issuers list).', EXIT.usage);
      await answer(api(c).removeWorkloadIssuer({ params: { ...params, id } }), 'workload-issuers remove');
      return io.result({ id, removed: true }, [`Workload issuer ${id} removed; its workloads get no new token.`]);
    }
    default:
      throw new CliError(`Unknown subcommand ${String(sub)}: svc workload-issuers list|add|remove <id>.`, EXIT.usage);
  }
}
