/**
 * The token svc forwards to an upstream in place of the caller's credential (docs/upstream-servers.md
 * "The forwarded token"): an RFC 9068 JWT access token, signed ES256 by svc, issued by the gateway's
 * public URL, its audience the upstream's registered URL, its subject who acts, living
 * UPSTREAM_LIMITS.tokenSeconds, with a jti of its own per call. The signing key is made once for
 * every gateway (SET NX on one Redis key), its private half sealed under KEY_PEPPER; the public
 * halves are published at `{base_url}/.well-known/jwks.json`.
 */
import { randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { K, sealValue, unsealValue, type Redis } from '@svc/accounts';
import type { KeyLevel } from '@svc/policy';
import { UPSTREAM_LIMITS } from './limits.ts';

const SEAL_INFO = 'svc upstream signing key v1';
const SEAL_FOR = 'upstream-signing-key';
const FORWARDED_TOKEN_ALG = 'ES256';

interface StoredKey {
  kid: string;
  public: JWK;
  sealed: string;
  createdAt: number;
}

/** What a forwarded token says (docs/upstream-servers.md "The forwarded token"). */
export interface ForwardedClaims {
  audience: string;
  /** `user:<id>`, `service_account:<id>` or `key:<id>`; `svc:gateway` for svc's own requests (reading the tools). */
  subject: string;
  clientId: string;
  level: KeyLevel;
  project: string;
  workspace: string;
  /** The tool's name at the upstream (absent on a request that calls none), and the upstream's name at svc. */
  tool: string | undefined;
  upstream: string;
}

type SigningKey = Awaited<ReturnType<typeof importJWK>>;

export class ForwardedTokens {
  private loaded: Promise<{ kid: string; key: SigningKey; publicKeys: JWK[] }> | null = null;

  private readonly redis: Redis;
  private readonly pepper: string;
  /** The gateway's public base URL: the tokens' issuer. */
  private readonly issuer: string;

  constructor(redis: Redis, pepper: string, issuer: string) {
    this.redis = redis;
    this.pepper = pepper;
    this.issuer = issuer;
  }

  /** The JWK Set a verifier reads (public halves only). */
  async jwks(): Promise<{ keys: JWK[] }> {
    return { keys: (await this.keys()).publicKeys };
  }

  async mint(c: ForwardedClaims): Promise<string> {
    const { kid, key } = await this.keys();
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      client_id: c.clientId,
      scope: `svc:${c.level.toLowerCase()}`,
      svc: {
        project: c.project,
        workspace: c.workspace,
        level: c.level,
        ...(c.tool === undefined ? {} : { tool: c.tool }),
        upstream: c.upstream,
      },
    })
      .setProtectedHeader({ alg: FORWARDED_TOKEN_ALG, typ: 'at+jwt', kid })
      .setIssuer(this.issuer)
      .setAudience(c.audience)
      .setSubject(c.subject)
      .setIssuedAt(now)
      .setExpirationTime(now + UPSTREAM_LIMITS.tokenSeconds)
      .setJti(randomUUID())
      .sign(key);
  }

  private keys() {
    if (!this.loaded) {
      this.loaded = this.load();
      // A failed read (Redis away) is tried again by the next call.
      this.loaded.catch(() => (this.loaded = null));
    }
    return this.loaded;
  }

  private async load() {
    const key = K.upstreamSigningKeys();
    let text = await this.redis.get(key);
    if (!text) {
      // Every gateway may make one at once: the first SET NX wins and all read the winner's.
      await this.redis.set(key, JSON.stringify({ keys: [await newKey(this.pepper)] }), 'NX');
      text = await this.redis.get(key);
    }
    const stored = (JSON.parse(text ?? '{"keys":[]}') as { keys: StoredKey[] }).keys;
    const current = stored[0];
    const opened = current ? unsealValue(this.pepper, SEAL_FOR, current.sealed, SEAL_INFO) : null;
    if (!current || !opened) throw new Error('the upstream signing key cannot be opened under KEY_PEPPER');
    return {
      kid: current.kid,
      key: await importJWK(JSON.parse(opened) as JWK, FORWARDED_TOKEN_ALG),
      publicKeys: stored.map((k) => ({ ...k.public, kid: k.kid, alg: FORWARDED_TOKEN_ALG, use: 'sig' })),
    };
  }
}

async function newKey(pepper: string): Promise<StoredKey> {
  const pair = await generateKeyPair(FORWARDED_TOKEN_ALG, { extractable: true });
  const publicJwk = await exportJWK(pair.publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const privateJwk = await exportJWK(pair.privateKey);
  return { kid, public: publicJwk, sealed: sealValue(pepper, SEAL_FOR, JSON.stringify(privateJwk), SEAL_INFO), createdAt: Date.now() };
}
