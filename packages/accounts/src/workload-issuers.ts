/**
 * A workspace's workload issuers (docs/workload-identity.md): a CI system or cluster whose signed
 * workload tokens the workspace trades for short-lived tokens of its service accounts, with no
 * stored secret. Each issuer carries its kind, its public keys (an inline JWK Set or an https JWKS
 * URL, bounded as a service account's client keys are), the audience its tokens must name, and the
 * rules that map a token's claims to one service account of the workspace. The issuer and its
 * rules are one record, replaced whole. At most WORKLOAD_ISSUER_LIMITS.maxIssuers per workspace.
 */
import { createHash } from 'node:crypto';
import type { BotStore } from './bots.ts';
import type { StoreContext } from './context.ts';
import { AccountError } from './errors.ts';
import { K } from './keys.ts';
import { serviceAccountKeysProblem, type PublicJwk, type ServiceAccountKeys } from './service-account-clients.ts';
import { WORKLOAD_ISSUER_LIMITS } from './workload-issuer-limits.ts';
import { GITHUB_ACTIONS_ISSUER, ruleProblem, WORKLOAD_ISSUER_KINDS, type WorkloadIssuerKind } from './workload-rules.ts';

/** One rule: a token whose named claims all match is the service account `serviceAccount`. */
export interface WorkloadRule {
  serviceAccount: string;
  /** Claim name to pattern (exact, or with `*` / `**`: workload-rules.ts claimMatches). */
  claims: Record<string, string>;
}

export interface WorkloadIssuer {
  /** A short stable id of the issuer (its hash), to name it in a path. */
  id: string;
  kind: WorkloadIssuerKind;
  /** The `iss` of its tokens; for `spiffe`, the trust domain as `spiffe://<trust domain>`. */
  issuer: string;
  /** The `aud` its tokens must name; null: the auth-service's issuer URL. */
  audience: string | null;
  jwks: { keys: PublicJwk[] } | null;
  jwksUri: string | null;
  rules: WorkloadRule[];
  addedAt: number;
}

export interface WorkloadIssuerInput {
  kind: WorkloadIssuerKind;
  /** Defaults to GitHub's issuer for `github-actions`. */
  issuer?: string;
  audience?: string | null;
  /** Inline keys, or a JWKS URL; `github-actions` defaults to GitHub's JWKS URL. */
  keys?: ServiceAccountKeys;
  rules: WorkloadRule[];
}

/** The id of an issuer: the first 16 characters of its SHA-256, base64url. */
const workloadIssuerId = (issuer: string) => createHash('sha256').update(`workload\n${issuer}`).digest('base64url').slice(0, 16);

function urlProblem(what: string, value: string, protocol: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${what} is not a URL`;
  }
  if (url.protocol !== protocol) return `${what} must be a ${protocol.slice(0, -1)} URL`;
  if (url.username || url.password || url.search || url.hash || value.includes('?') || value.includes('#'))
    return `${what} must not carry credentials, a query or a fragment`;
  return null;
}

/** Why the issuer identifier of `kind` is refused, or null. */
function issuerProblem(kind: WorkloadIssuerKind, issuer: string): string | null {
  if (issuer.length === 0 || issuer.length > WORKLOAD_ISSUER_LIMITS.maxIssuerLength)
    return `issuer must be at most ${WORKLOAD_ISSUER_LIMITS.maxIssuerLength} characters`;
  // SPIFFE ID spec §2.1: the trust domain is lower-case letters, digits, dots, dashes and underscores.
  if (kind === 'spiffe')
    return /^spiffe:\/\/[a-z0-9._-]+$/.test(issuer) ? null : 'a spiffe issuer is its trust domain: spiffe://example.org';
  return urlProblem('issuer', issuer, 'https:');
}

function inputProblem(input: WorkloadIssuerInput, issuer: string, keys: ServiceAccountKeys | undefined): string | null {
  if (!WORKLOAD_ISSUER_KINDS.includes(input.kind)) return `kind must be one of ${WORKLOAD_ISSUER_KINDS.join(', ')}`;
  const problem = issuerProblem(input.kind, issuer) ?? (keys ? serviceAccountKeysProblem(keys) : 'give jwks or jwks_uri');
  if (problem) return problem;
  if (input.audience != null && (input.audience.length === 0 || input.audience.length > WORKLOAD_ISSUER_LIMITS.maxIssuerLength))
    return `audience must be 1 to ${WORKLOAD_ISSUER_LIMITS.maxIssuerLength} characters`;
  if (!Array.isArray(input.rules) || input.rules.length === 0 || input.rules.length > WORKLOAD_ISSUER_LIMITS.maxRules)
    return `rules must hold 1 to ${WORKLOAD_ISSUER_LIMITS.maxRules} rules`;
  for (const [i, rule] of input.rules.entries()) {
    const p = ruleProblem(input.kind, issuer, rule.claims, WORKLOAD_ISSUER_LIMITS.maxClaims, WORKLOAD_ISSUER_LIMITS.maxPatternLength);
    if (p) return `rules[${i}]: ${p}`;
  }
  return null;
}

export class WorkloadIssuerStore {
  private readonly ctx: StoreContext;
  private readonly bots: BotStore;

  constructor(ctx: StoreContext, bots: BotStore) {
    this.ctx = ctx;
    this.bots = bots;
  }

  /**
   * Trusts a workload issuer in `workspace` with its rules (replacing the record when already
   * trusted). Throws `invalid` naming the problem (a rule's service account must be a live one of
   * the workspace), `limit` past maxIssuers.
   */
  async add(workspace: string, input: WorkloadIssuerInput, now = Date.now()): Promise<WorkloadIssuer> {
    const issuer = input.issuer ?? (input.kind === 'github-actions' ? GITHUB_ACTIONS_ISSUER : '');
    const keys = input.keys ?? (input.kind === 'github-actions' ? { jwksUri: `${issuer}/.well-known/jwks` } : undefined);
    const problem = inputProblem(input, issuer, keys);
    if (problem) throw new AccountError('invalid', problem);
    for (const [i, rule] of input.rules.entries()) {
      const bot = await this.bots.get(rule.serviceAccount);
      if (!bot || bot.workspace !== workspace || bot.revoked)
        throw new AccountError(
          'invalid',
          `rules[${i}]: service_account ${rule.serviceAccount} is not a live service account of ${workspace}`,
        );
    }
    const record: WorkloadIssuer = {
      id: workloadIssuerId(issuer),
      kind: input.kind,
      issuer,
      audience: input.audience ?? null,
      jwks: keys && 'jwks' in keys ? keys.jwks : null,
      jwksUri: keys && 'jwksUri' in keys ? keys.jwksUri : null,
      rules: input.rules.map((r) => ({ serviceAccount: r.serviceAccount, claims: { ...r.claims } })),
      addedAt: now,
    };
    const key = K.workspaceWorkloadIssuers(workspace);
    const added = await this.ctx.redis.hset(key, record.id, JSON.stringify(record));
    // Two concurrent additions may both pass a read-then-write check: count after writing instead.
    if (added > 0 && (await this.ctx.redis.hlen(key)) > WORKLOAD_ISSUER_LIMITS.maxIssuers) {
      await this.ctx.redis.hdel(key, record.id);
      throw new AccountError(
        'limit',
        `A workspace trusts at most ${WORKLOAD_ISSUER_LIMITS.maxIssuers} workload issuers; remove one first.`,
      );
    }
    return record;
  }

  async list(workspace: string): Promise<WorkloadIssuer[]> {
    const all = await this.ctx.redis.hvals(K.workspaceWorkloadIssuers(workspace));
    return all.map((v) => JSON.parse(v) as WorkloadIssuer).sort((a, b) => a.addedAt - b.addedAt);
  }

  /** The workload issuer `issuer` of `workspace`, or null: one read, for the grant. */
  async find(workspace: string, issuer: string): Promise<WorkloadIssuer | null> {
    const v = await this.ctx.redis.hget(K.workspaceWorkloadIssuers(workspace), workloadIssuerId(issuer));
    const record = v ? (JSON.parse(v) as WorkloadIssuer) : null;
    return record?.issuer === issuer ? record : null;
  }

  /** Stops trusting the issuer with id `id`; the removed record, or null. */
  async remove(workspace: string, id: string): Promise<WorkloadIssuer | null> {
    const key = K.workspaceWorkloadIssuers(workspace);
    const v = await this.ctx.redis.hget(key, id);
    if (!v) return null;
    await this.ctx.redis.hdel(key, id);
    return JSON.parse(v) as WorkloadIssuer;
  }
}
