/**
 * When the shared Redis is unreachable the auth host says so: 503 with `Retry-After` and a message
 * naming the problem, as an OAuth error body (`temporarily_unavailable`, RFC 6749 §4.1.2.1) on the
 * API paths and as a page elsewhere. Never a 500, and never a sign-in or an approval half done.
 * The Redis client fails fast (no offline queue) and its commands time out (connectRedis
 * commandTimeoutMs), so a request does not hang while Redis is away or stalled, and the service
 * recovers by itself when it returns. A command that fails because Redis went away in the middle
 * of a request (isStoreError) counts as the outage too, even before the client notices the loss.
 */
import type { NextFunction, Request, Response } from 'express';
import { pageStatus } from '@svc/errors';
import { isStoreError, STORE_DOWN_RETRY_AFTER_SECONDS, type Redis } from '@svc/accounts';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { oauthError, sendOAuthError } from './oauth-error.ts';
import { render } from '../ui/html.ts';
import { alertPage } from '../ui/layout.ts';
import { PROBE_PATHS } from './routes.ts';

export const STORE_DOWN_MESSAGE = 'The account store is unreachable right now. Nothing was changed; try again in a few seconds.';
const RETRY_AFTER_SECONDS = String(STORE_DOWN_RETRY_AFTER_SECONDS);

function storeIsDown(redis: Redis): boolean {
  return redis.status !== 'ready';
}

/** The failure `err` of a request is the store's: it is down, or the error says it did not answer. */
export function storeFailure(redis: Redis, err: unknown): boolean {
  return storeIsDown(redis) || isStoreError(err);
}

export function wantsJson(path: string, accept: string | undefined): boolean {
  return path.startsWith('/api/') || path.startsWith('/.well-known/') || !(accept ?? '').includes('text/html');
}

const storeDownPage = () => alertPage('Temporarily unavailable', STORE_DOWN_MESSAGE);

export function sendStoreDown(req: Request, res: Response): void {
  res.set('Retry-After', RETRY_AFTER_SECONDS);
  if (wantsJson(req.path, req.get('accept'))) sendOAuthError(res, 'temporarily_unavailable', STORE_DOWN_MESSAGE);
  else render(res, storeDownPage(), { refusal: 'store_down' });
}

/** Express step in front of everything that needs Redis. */
export function storeOutageGuard(redis: Redis) {
  return function storeOutageGuard(req: Request, res: Response, next: NextFunction): void {
    // The probes answer without Redis (readiness reports the outage itself).
    if (PROBE_PATHS.has(req.path) || !storeIsDown(redis)) return next();
    sendStoreDown(req, res);
  };
}

/** The same 503 from inside oidc-provider (a Koa context). */
export function setStoreDown(ctx: KoaContextWithOIDC): void {
  ctx.set('Retry-After', RETRY_AFTER_SECONDS);
  if (wantsJson(ctx.path, ctx.get('accept'))) {
    const refused = oauthError('temporarily_unavailable', STORE_DOWN_MESSAGE);
    ctx.status = refused.status;
    ctx.body = refused.body;
  } else {
    ctx.status = pageStatus('store_down');
    ctx.type = 'html';
    ctx.body = String(storeDownPage());
  }
}
