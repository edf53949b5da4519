/**
 * The token svc forwards to an upstream in place of the caller's credential (docs/upstream-servers.md
 * "The forwarded token"): an RFC 9068 JWT access token, signed ES256 by svc, issued by the gateway's
 * public URL, its audience the upstream's registered URL, its subject who acts, living
 * UPSTREAM_LIMITS.tokenSeconds, with a jti of its own per call. The keys are read from Redis
 * (signing-keys.ts) and read again when this gateway's copy is UPSTREAM_LIMITS.signingKeys
 * .reloadSeconds old, so a rotation reaches every gateway before its key signs; the public halves
 * are published at `{base_url}/.well-known/jwks.json`.
 *
 * Signed with node:crypto on the request path: each key is opened once into a KeyObject and its
 * protected header encoded once; a token is then one base64url of its claims and one ECDSA
 * signature (RFC 7515 §7.1 compact serialization; RFC 7518 §3.4: ES256's signature is R || S,
 * which `dsaEncoding: 'ieee-p1363'` gives). jose's SignJWT cost twice as much a token
 * (docs/benchmarks.md "Forwarded calls").
 */
import { createPrivateKey, randomUUID, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import { unsealValue, type Redis } from '@svc/accounts';
import type { KeyLevel } from '@svc/policy';
import { UPSTREAM_LIMITS } from './limits.ts';
import { isPublished, keyInUse, readOrMakeKeys, SIGNING_KEY_SEAL, storedKeys, type StoredKey } from './signing-keys.ts';

const FORWARDED_TOKEN_ALG = 'ES256';

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

/** A stored key opened for signing: its private KeyObject and its protected header, encoded once. */
interface OpenKey extends StoredKey {
  key: KeyObject;
  header: string;
  jwk: JWK;
}

/** The keys as this gateway last read them. */
interface KeySet {
  text: string;
  keys: OpenKey[];
  readAt: number;
}

const b64url = (text: string) => Buffer.from(text).toString('base64url');

export class ForwardedTokens {
  private set: KeySet | null = null;
  private reading: Promise<KeySet> | null = null;

  private readonly redis: Redis;
  private readonly pepper: string;
  /** The gateway's public base URL: the tokens' issuer. */
  private readonly issuer: string;
  private readonly now: () => number;

  constructor(redis: Redis, pepper: string, issuer: string, now: () => number = Date.now) {
    this.redis = redis;
    this.pepper = pepper;
    this.issuer = issuer;
    this.now = now;
  }

  /** The JWK Set a verifier reads (public halves only): every key published now. */
  async jwks(): Promise<{ keys: JWK[] }> {
    const { keys } = await this.keys();
    const now = this.now();
    return { keys: keys.filter((k) => isPublished(k, now)).map((k) => k.jwk) };
  }

  /** A token for one request; at once when this gateway's keys are fresh. */
  mint(c: ForwardedClaims): string | Promise<string> {
    const set = this.keys();
    return set instanceof Promise ? set.then((s) => this.sign(s, c)) : this.sign(set, c);
  }

  private sign(set: KeySet, c: ForwardedClaims): string {
    const now = this.now();
    const key = keyInUse(set.keys, now) as OpenKey | undefined;
    if (!key) throw new Error('no upstream signing key is in use');
    const iat = Math.floor(now / 1000);
    const claims = {
      iss: this.issuer,
      aud: c.audience,
      sub: c.subject,
      client_id: c.clientId,
      scope: `svc:${c.level.toLowerCase()}`,
      svc: {
        project: c.project,
        workspace: c.workspace,
        level: c.level,
        ...(c.tool === undefined ? {} : { tool: c.tool }),
        upstream: c.upstream,
      },
      jti: randomUUID(),
      iat,
      exp: iat + UPSTREAM_LIMITS.tokenSeconds,
    };
    const input = `${key.header}.${b64url(JSON.stringify(claims))}`;
    const signature = sign('sha256', Buffer.from(input), { key: key.key, dsaEncoding: 'ieee-p1363' });
    return `${input}.${signature.toString('base64url')}`;
  }

  /** The keys: this gateway's copy while it is fresh, else read again (one read at a time). */
  private keys(): KeySet | Promise<KeySet> {
    const set = this.set;
    if (set && this.now() - set.readAt < UPSTREAM_LIMITS.signingKeys.reloadSeconds * 1000) return set;
    if (!this.reading) {
      this.reading = this.read();
      void this.reading.finally(() => (this.reading = null)).catch(() => {});
    }
    return this.reading;
  }

  private async read(): Promise<KeySet> {
    const readAt = this.now();
    let text: string;
    try {
      text = await readOrMakeKeys(this.redis, this.pepper, readAt);
    } catch (err) {
      // Redis away: the keys read last go on signing (a rotation's lead is far longer than a
      // reload), and are read again after another reload interval.
      if (!this.set) throw err;
      this.set = { ...this.set, readAt };
      return this.set;
    }
    this.set = text === this.set?.text ? { ...this.set, readAt } : { text, keys: this.open(storedKeys(text)), readAt };
    return this.set;
  }

  /** Opens each key once: one already open is kept as it was. */
  private open(stored: StoredKey[]): OpenKey[] {
    const known = new Map(this.set?.keys.map((k) => [k.sealed, k]));
    return stored.map((k) => {
      const open = known.get(k.sealed);
      if (open) return { ...open, ...k };
      const privateJwk = unsealValue(this.pepper, SIGNING_KEY_SEAL.for, k.sealed, SIGNING_KEY_SEAL.info);
      if (!privateJwk) throw new Error('the upstream signing key cannot be opened under KEY_PEPPER');
      return {
        ...k,
        key: createPrivateKey({ key: JSON.parse(privateJwk) as JsonWebKey, format: 'jwk' }),
        // RFC 9068 §2.1: typ at+jwt.
        header: b64url(JSON.stringify({ alg: FORWARDED_TOKEN_ALG, typ: 'at+jwt', kid: k.kid })),
        jwk: { ...k.public, kid: k.kid, alg: FORWARDED_TOKEN_ALG, use: 'sig' },
      };
    });
  }
}
