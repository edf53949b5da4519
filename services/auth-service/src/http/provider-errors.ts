/**
 * The outermost oidc-provider middleware (provider.use puts it in front of the provider's routes):
 * every answer of the provider that is an error leaves as one of ours.
 * - A server_error caused by Redis (down, or a command that failed because it went away or timed
 *   out) becomes the store-outage 503 (store-outage.ts).
 * - An error that escapes the provider's own error handler would reach Koa's default handler,
 *   which strips every header already set (our security headers among them) and answers a
 *   plain-text 500 without a log line. It is caught here instead: logged, and answered with our
 *   error page (or an OAuth error body on the API paths), its status kept when it is a client
 *   error the provider marked as safe to show.
 */
import type { Redis } from '@svc/accounts';
import type { Logger } from '@svc/logger';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { alertPage, notFoundPage } from '../ui/layout.ts';
import { oauthError } from './oauth-error.ts';
import { setStoreDown, storeFailure, wantsJson } from './store-outage.ts';

/** Set by the provider's `server_error` event, read after the request (create-provider.ts). */
export const SERVER_ERROR = Symbol('svc.serverError');

type Ctx = KoaContextWithOIDC & { [SERVER_ERROR]?: unknown };

export function providerErrors(deps: { redis: Redis; logger: Logger }) {
  return async function providerErrors(ctx: Ctx, next: () => Promise<void>): Promise<void> {
    try {
      await next();
    } catch (err) {
      if (storeFailure(deps.redis, err)) {
        deps.logger.warn('request failed: Redis unreachable', { path: ctx.path });
        return setStoreDown(ctx);
      }
      const e = err as { expose?: unknown; status?: unknown; statusCode?: unknown; error?: unknown; error_description?: unknown };
      const status = Number(e.statusCode ?? e.status);
      const client = e.expose === true && status >= 400 && status < 500;
      if (client) deps.logger.info('request refused', { path: ctx.path, status, error: e.error });
      else deps.logger.error('request failed', { path: ctx.path, err });
      // A client error keeps oidc-provider's own code and status (its codes are the RFCs', mapped by
      // the library); anything else is our server_error.
      const description = client && typeof e.error_description === 'string' ? e.error_description : 'Something went wrong. Try again.';
      const failed = oauthError('server_error', description);
      const error = client && typeof e.error === 'string' ? e.error : failed.body['error'];
      ctx.status = client ? status : failed.status;
      ctx.set('Cache-Control', 'no-store');
      if (wantsJson(ctx.path, ctx.get('accept'))) ctx.body = { error, error_description: description };
      else if (ctx.status === 404) {
        ctx.type = 'html';
        ctx.body = String(notFoundPage());
      } else {
        ctx.type = 'html';
        ctx.body = String(alertPage('Something went wrong', description));
      }
      return;
    }
    if (ctx.status === 500 && storeFailure(deps.redis, ctx[SERVER_ERROR])) setStoreDown(ctx);
    // A path no route answered: our 404 page (or an OAuth-style body on the API paths), not Koa's text.
    if (ctx.status === 404 && !ctx.body) {
      const missing = oauthError('not_found', 'no such endpoint');
      ctx.status = missing.status;
      if (wantsJson(ctx.path, ctx.get('accept'))) ctx.body = missing.body;
      else {
        ctx.type = 'html';
        ctx.body = String(notFoundPage());
      }
    }
  };
}
