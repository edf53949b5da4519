/**
 * Idempotent refresh (docs/security.md "Refresh tokens"). oidc-provider rotates public clients'
 * refresh tokens and revokes the grant when a consumed one comes back (rotateRefreshToken). Clients
 * that refresh from several tabs or retry a lost response would lose their grant, and two refreshes
 * racing through the provider could both rotate (it reads, then consumes), leaving two token
 * families alive. So, in front of the provider and across processes sharing Redis:
 * - the first request for a refresh token claims it (SET NX on its digest, a value of its own, a
 *   lease of CLAIM_LEASE_MS that it renews every CLAIM_RENEW_MS while the provider works) and goes
 *   to the provider; the provider's answer, if a new pair, is kept sealed under the presented token
 *   for 30 s (`keepRefreshPair`, a post-step);
 * - a claim whose request ends without a pair is released (deleted if it is still that request's);
 *   a release that Redis cannot take (the outage that failed the request) is sent again as soon as
 *   the connection is ready again, so a claim made as Redis stopped does not outlive the outage
 *   (docs/operations.md "When Redis stops answering"); the lease bounds it if this process dies;
 * - a request finding the pair within 30 s of the first use gets that same pair (the same client only);
 *   only a public client's pair is kept: a client that authenticates (private_key_jwt) has a token
 *   that does not rotate, and each of its refreshes is authenticated by the provider;
 * - a request finding the token claimed but no pair yet waits for it, polling with a short backoff,
 *   for at most a few seconds, then answers 503 `temporarily_unavailable` rather than reach the provider;
 * - past 30 s the request reaches the provider, whose reuse detection revokes the grant.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { NextFunction, Request, Response } from 'express';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { isStoreError, oidcDigest, type Redis } from '@svc/accounts';
import { runScript, script } from '@svc/limits';
import { OK } from '../store/redis-keys.ts';
import { oauthParams } from './body.ts';
import { sendOAuthError } from '../http/oauth-error.ts';
import { pooledRandomBytes, seal, unseal } from '@svc/credentials';

/** How long a used refresh token still answers with the pair it was exchanged for. */
const REFRESH_REPLAY_MS = 30_000;
/** How long a request waits for the rotation another request claimed. */
const WAIT_MS = 5_000;
/** A claim's lease: it lapses this long after its last renewal (a claimer that died frees it). */
export const CLAIM_LEASE_MS = 5_000;
/** How often the claimer renews its lease while the provider works. */
const CLAIM_RENEW_MS = 1_000;
/** Releases waiting for Redis to return, at most (past it a claim is left to its lease). */
const MAX_DEFERRED_RELEASES = 1_000;
/** KEYS[1] the claim; ARGV[1] the claimer's value; ARGV[2] the lease: renewed only if still its own. */
const RENEW = script(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`);
/** KEYS[1] the claim; ARGV[1] the claimer's value: deleted only if still its own. */
const RELEASE = script(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`);
const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 200;
/** Longer values are no refresh token of ours; the provider answers them. */
const MAX_TOKEN_LENGTH = 200;

export interface RefreshReplayDeps {
  redis: Redis;
  /** The clock the 30 s window is measured on (tests move it). */
  now?: () => number;
  /** Starts the read of the token's record, sent right after its claim (grant-read-ahead.ts). */
  readAhead?: (refreshToken: string) => void;
}

interface KeptPair {
  clientId: string;
  usedAt: number;
  body: Record<string, unknown>;
}

function isKeptPair(value: unknown): value is KeptPair {
  const v = value as Partial<KeptPair> | null;
  return typeof v?.clientId === 'string' && typeof v.usedAt === 'number' && typeof v.body === 'object' && v.body !== null;
}

/** The client_id the request names: in the body (public clients) or in HTTP Basic authentication. */
function presentedClientId(req: Request, params: URLSearchParams): string | null {
  const inBody = params.get('client_id');
  if (inBody) return inBody;
  const [scheme, value] = (req.get('authorization') ?? '').split(' ');
  if (scheme?.toLowerCase() !== 'basic' || !value) return null;
  const user = Buffer.from(value, 'base64').toString('utf8').split(':')[0];
  return user ? decodeURIComponent(user) : null;
}

/**
 * The claims of this process: releases them, and keeps the releases Redis could not take until
 * the connection is ready again (then a release is the first command sent).
 */
function createClaims(redis: Redis) {
  /** `digest value` -> [digest, value]: two requests' claims of one token are two releases. */
  const deferred = new Map<string, [string, string]>();
  const release = async (digest: string, value: string): Promise<void> => {
    try {
      await runScript(redis, RELEASE, [OK.refreshClaim(digest)], [value]);
    } catch (err) {
      if (!isStoreError(err)) throw err;
      if (deferred.size < MAX_DEFERRED_RELEASES) deferred.set(`${digest} ${value}`, [digest, value]);
    }
  };
  redis.on('ready', () => {
    const pending = [...deferred.values()];
    deferred.clear();
    for (const [digest, value] of pending) void release(digest, value).catch(() => {});
  });
  return {
    release,
    /** Claims the token's rotation for this request; a claim that may have landed unseen is released later. */
    async claim(digest: string, value: string): Promise<boolean> {
      try {
        return (await redis.set(OK.refreshClaim(digest), value, 'PX', CLAIM_LEASE_MS, 'NX')) !== null;
      } catch (err) {
        if (isStoreError(err)) await release(digest, value);
        throw err;
      }
    },
    /** Renews the lease while the request runs; releases the claim when it ends without a pair. */
    hold(res: Response, digest: string, value: string): void {
      const renew = setInterval(() => {
        void runScript(redis, RENEW, [OK.refreshClaim(digest)], [value, CLAIM_LEASE_MS]).catch(() => {});
      }, CLAIM_RENEW_MS);
      res.on('close', () => {
        clearInterval(renew);
        // A response not sent in full (the client left) may still be in the provider's hands: the
        // lease, no longer renewed, frees the token instead.
        if (res.writableFinished && res.statusCode !== 200) void release(digest, value).catch(() => {});
      });
    },
  };
}

/**
 * Both results, or the first failure once both settled; `undo` runs when the read failed after
 * the claim landed (the request ends with the store error, so its claim is given back).
 */
async function both(read: Promise<string | null>, claim: Promise<boolean>, undo: () => Promise<void>): Promise<[string | null, boolean]> {
  const [r, c] = await Promise.allSettled([read, claim]);
  if (c.status === 'rejected') throw c.reason;
  if (r.status === 'rejected') {
    if (c.value) await undo();
    throw r.reason;
  }
  return [r.value, c.value];
}

/** Express pre-step of the token endpoint for grant_type=refresh_token. */
export function refreshReplay(deps: RefreshReplayDeps) {
  const now = deps.now ?? Date.now;
  const claims = createClaims(deps.redis);
  return async function replayRefresh(req: Request, res: Response, next: NextFunction): Promise<void> {
    const params = oauthParams(res);
    const token = params.get('refresh_token');
    if (params.get('grant_type') !== 'refresh_token' || !token || token.length > MAX_TOKEN_LENGTH) return next();
    const digest = oidcDigest(token);
    const claimValue = pooledRandomBytes(16).toString('base64url');
    const deadline = Date.now() + WAIT_MS;
    for (let delay = FIRST_POLL_MS; ; delay = Math.min(delay * 2, MAX_POLL_MS)) {
      // The kept pair's read, the claim and then the token's record read are sent together (one
      // round trip): a record read after the claim that landed is the one the provider rotates. A
      // pair found decides, whether or not the claim landed: a claim it made is given back at once.
      const pair = deps.redis.get(OK.refreshReplay(digest));
      const claim = claims.claim(digest, claimValue);
      deps.readAhead?.(token);
      const [sealed, claimed] = await both(pair, claim, () => claims.release(digest, claimValue));
      const kept = sealed ? unseal(token, sealed) : null;
      if (isKeptPair(kept)) {
        // Past the window the provider sees a consumed token and revokes the grant.
        if (now() - kept.usedAt >= REFRESH_REPLAY_MS) {
          if (claimed) claims.hold(res, digest, claimValue);
          return next();
        }
        if (claimed) void claims.release(digest, claimValue).catch(() => {});
        if (kept.clientId !== presentedClientId(req, params)) {
          return sendOAuthError(res, 'invalid_grant', 'the refresh token was issued to another client');
        }
        res.status(200).set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).json(kept.body);
        return;
      }
      if (claimed) {
        claims.hold(res, digest, claimValue);
        return next();
      }
      if (Date.now() >= deadline) {
        res.set('Retry-After', '1');
        return sendOAuthError(res, 'temporarily_unavailable', 'this refresh token is being exchanged by another request; try again');
      }
      await sleep(delay);
    }
  };
}

/** oidc-provider post-step of the token endpoint: keeps the new pair (the pre-step releases the claim otherwise). */
export function keepRefreshPair(deps: RefreshReplayDeps) {
  const now = deps.now ?? Date.now;
  return async function keepPair(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
    await next();
    if (ctx.oidc?.route !== 'token') return;
    const params = ctx.oidc.params as { grant_type?: unknown; refresh_token?: unknown } | undefined;
    const token = params?.refresh_token;
    if (params?.grant_type !== 'refresh_token' || typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return;
    const digest = oidcDigest(token);
    const client = ctx.oidc.entities.Client;
    const body = ctx.body as Record<string, unknown> | undefined;
    if (ctx.status !== 200 || !client || !body || typeof body !== 'object') return;
    // Only a public client's token rotated: a client that authenticates presents its unchanged
    // token again, and proves itself again, through the provider (rotateRefreshToken). Its claim
    // goes now, so its next refresh reaches the provider at once.
    if (client.clientAuthMethod !== 'none') {
      await deps.redis.del(OK.refreshClaim(digest));
      return;
    }
    const kept: KeptPair = { clientId: client.clientId, usedAt: now(), body };
    await deps.redis.set(OK.refreshReplay(digest), seal(token, kept), 'PX', REFRESH_REPLAY_MS);
  };
}
