/**
 * A workspace's trusted identity providers (docs/auth-service.md "Enterprise-managed
 * authorization"): issuers whose identity assertion JWT authorization grants (ID-JAG) the
 * workspace accepts, each with its public keys (an inline JWK Set or an https JWKS URL, bounded as
 * a service account's client keys are). At most TRUSTED_ISSUER_LIMITS.maxIssuers per workspace.
 */
import { createHash } from 'node:crypto';
import type { StoreContext } from './context.ts';
import { AccountError } from './errors.ts';
import { K } from './keys.ts';
import { serviceAccountKeysProblem, type PublicJwk, type ServiceAccountKeys } from './service-account-clients.ts';
import { TRUSTED_ISSUER_LIMITS } from './trusted-issuer-limits.ts';

export interface TrustedIssuer {
  /** A short stable id of the issuer (its hash), to name it in a path. */
  id: string;
  issuer: string;
  jwks: { keys: PublicJwk[] } | null;
  jwksUri: string | null;
  addedAt: number;
}

/** The id of an issuer: the first 16 characters of its SHA-256, base64url. */
const trustedIssuerId = (issuer: string) => createHash('sha256').update(issuer).digest('base64url').slice(0, 16);

/** Why an issuer identifier is refused, or null (RFC 8414 §2: https, no query or fragment). */
function issuerProblem(issuer: unknown): string | null {
  if (typeof issuer !== 'string' || issuer.length === 0 || issuer.length > TRUSTED_ISSUER_LIMITS.maxIssuerLength)
    return `issuer must be a URL of at most ${TRUSTED_ISSUER_LIMITS.maxIssuerLength} characters`;
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return 'issuer is not a URL';
  }
  if (url.protocol !== 'https:') return 'issuer must be an https URL';
  if (url.username || url.password || url.search || url.hash || issuer.includes('?') || issuer.includes('#'))
    return 'issuer must not carry credentials, a query or a fragment';
  return null;
}

export class TrustedIssuerStore {
  private readonly ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.ctx = ctx;
  }

  /** Trusts `issuer` with `keys` in `workspace` (replacing its keys when already trusted); `limit` past maxIssuers. */
  async add(workspace: string, issuer: string, keys: ServiceAccountKeys, now = Date.now()): Promise<TrustedIssuer> {
    const problem = issuerProblem(issuer) ?? serviceAccountKeysProblem(keys);
    if (problem) throw new AccountError('invalid', problem);
    const record: TrustedIssuer = {
      id: trustedIssuerId(issuer),
      issuer,
      jwks: 'jwks' in keys ? keys.jwks : null,
      jwksUri: 'jwksUri' in keys ? keys.jwksUri : null,
      addedAt: now,
    };
    const key = K.workspaceTrustedIssuers(workspace);
    const added = await this.ctx.redis.hset(key, record.id, JSON.stringify(record));
    // Two concurrent additions may both pass a read-then-write check: count after writing instead.
    if (added > 0 && (await this.ctx.redis.hlen(key)) > TRUSTED_ISSUER_LIMITS.maxIssuers) {
      await this.ctx.redis.hdel(key, record.id);
      throw new AccountError(
        'limit',
        `A workspace trusts at most ${TRUSTED_ISSUER_LIMITS.maxIssuers} identity providers; remove one first.`,
      );
    }
    return record;
  }

  async list(workspace: string): Promise<TrustedIssuer[]> {
    const all = await this.ctx.redis.hvals(K.workspaceTrustedIssuers(workspace));
    return all.map((v) => JSON.parse(v) as TrustedIssuer).sort((a, b) => a.addedAt - b.addedAt);
  }

  /** The trusted issuer `issuer` of `workspace`, or null: one read, for the grant. */
  async find(workspace: string, issuer: string): Promise<TrustedIssuer | null> {
    const v = await this.ctx.redis.hget(K.workspaceTrustedIssuers(workspace), trustedIssuerId(issuer));
    const record = v ? (JSON.parse(v) as TrustedIssuer) : null;
    return record?.issuer === issuer ? record : null;
  }

  /** Stops trusting the issuer with id `id`; the removed record, or null. */
  async remove(workspace: string, id: string): Promise<TrustedIssuer | null> {
    const key = K.workspaceTrustedIssuers(workspace);
    const v = await this.ctx.redis.hget(key, id);
    if (!v) return null;
    await this.ctx.redis.hdel(key, id);
    return JSON.parse(v) as TrustedIssuer;
  }
}
