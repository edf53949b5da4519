/**
 * Idempotent refresh (docs/security.md "Refresh tokens"). oidc-provider rotates public clients'
 * refresh tokens and revokes the grant when a consumed one comes back (rotateRefreshToken). Clients
 * that refresh from several tabs or retry a lost response would lose their grant, and two refreshes
 * racing through the provider could both rotate (it reads, then consumes), leaving two token
 * families alive. So, in front of the provider and across processes sharing Redis:
 * - the first request for a refresh token claims it (SET NX on its digest) and goes to the provider;
 *   the provider's answer, if a new pair, is kept sealed under the presented token for 30 s
 *   (`keepRefreshPair`, a post-step) and the claim is released if it was an error;
 * - a request finding the pair within 30 s of the first use gets that same pair (the same client only);
 * - a request finding the token claimed but no pair yet waits for it, polling with a short backoff,
 *   for at most a few seconds, then answers 503 `temporarily_unavailable` rather than reach the provider;
 * - past 30 s the request reaches the provider, whose reuse detection revokes the grant.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { NextFunction, Request, Response } from 'express';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { oidcDigest, type Redis } from '@svc/accounts';
import { OK } from '../provider/redis-keys.ts';
import { oauthParams } from './body.ts';
import { sendOAuthError } from './oauth-error.ts';
import { seal, unseal } from './sealed-pair.ts';

/** How long a used refresh token still answers with the pair it was exchanged for. */
const REFRESH_REPLAY_MS = 30_000;
/** How long a request waits for the rotation another request claimed. */
const WAIT_MS = 5_000;
const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 200;
/** Longer values are no refresh token of ours; the provider answers them. */
const MAX_TOKEN_LENGTH = 200;

export interface RefreshReplayDeps {
  redis: Redis;
  /** The clock the 30 s window is measured on (tests move it). */
  now?: () => number;
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

/** Express pre-step of the token endpoint for grant_type=refresh_token. */
export function refreshReplay(deps: RefreshReplayDeps) {
  const now = deps.now ?? Date.now;
  return async function replayRefresh(req: Request, res: Response, next: NextFunction): Promise<void> {
    const params = oauthParams(res);
    const token = params.get('refresh_token');
    if (params.get('grant_type') !== 'refresh_token' || !token || token.length > MAX_TOKEN_LENGTH) return next();
    const digest = oidcDigest(token);
    const deadline = Date.now() + WAIT_MS;
    for (let delay = FIRST_POLL_MS; ; delay = Math.min(delay * 2, MAX_POLL_MS)) {
      const sealed = await deps.redis.get(OK.refreshReplay(digest));
      const kept = sealed ? unseal(token, sealed) : null;
      if (isKeptPair(kept)) {
        // Past the window the provider sees a consumed token and revokes the grant.
        if (now() - kept.usedAt >= REFRESH_REPLAY_MS) return next();
        if (kept.clientId !== presentedClientId(req, params)) {
          return sendOAuthError(res, 'invalid_grant', 'the refresh token was issued to another client');
        }
        res.status(200).set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).json(kept.body);
        return;
      }
      if (await deps.redis.set(OK.refreshClaim(digest), '1', 'PX', REFRESH_REPLAY_MS, 'NX')) return next();
      if (Date.now() >= deadline) {
        res.set('Retry-After', '1');
        return sendOAuthError(res, 'temporarily_unavailable', 'this refresh token is being exchanged by another request; try again');
      }
      await sleep(delay);
    }
  };
}

/** oidc-provider post-step of the token endpoint: keeps the new pair, or releases the claim on an error. */
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
    if (ctx.status !== 200 || !client || !body || typeof body !== 'object') {
      await deps.redis.del(OK.refreshClaim(digest));
      return;
    }
    const kept: KeptPair = { clientId: client.clientId, usedAt: now(), body };
    await deps.redis.set(OK.refreshReplay(digest), seal(token, kept), 'PX', REFRESH_REPLAY_MS);
  };
}
