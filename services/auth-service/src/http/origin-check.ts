/**
 * Backs the CSRF token on every state-changing form of our pages (docs/auth-service.md "Sign-in
 * protections"): a POST outside `/api/` (where OAuth clients call from anywhere) must come from a
 * page of the auth host itself. The browser's own signals decide, strongest first:
 * `Sec-Fetch-Site` (Fetch Metadata) must be `same-origin` or `none` (typed by the person);
 * else `Origin` must be the auth host's (`null`, sent by sandboxed frames and privacy-sensitive
 * redirects, is not); else `Referer`, when present, must be on the auth host. A request with none
 * of them comes from no browser that could be made to send it, and the session-bound token alone
 * decides.
 */
import type { NextFunction, Request, Response } from 'express';
import { render } from '../ui/html.ts';
import { ROUTES, type HostRoute } from './routes.ts';
import { alertPage } from '../ui/layout.ts';

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** Why the request is not from our own pages, or null when it is (or no browser signal says otherwise). */
function crossSiteReason(req: Request, authOrigin: string): string | null {
  const site = req.get('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin' || site === 'none' ? null : `Sec-Fetch-Site: ${site}`;
  const origin = req.get('origin');
  if (origin !== undefined) return origin === authOrigin ? null : 'Origin';
  const referer = req.get('referer');
  if (referer !== undefined) return originOf(referer) === authOrigin ? null : 'Referer';
  return null;
}

/** The routes another site posts to by design (HostRoute.crossSite), as patterns of their paths. */
const CROSS_SITE = (Object.values(ROUTES) as HostRoute[])
  .filter((r) => r.crossSite)
  .map((r) => new RegExp(`^${r.path.replace(/:[a-z]+/gi, '[^/]+')}$`));

export function originCheck(deps: { authUrl: string }) {
  const authOrigin = new URL(deps.authUrl).origin;
  return function checkOrigin(req: Request, res: Response, next: NextFunction): void {
    // SCIM (RFC 7644) is an API under a bearer token, sent by a directory's server, never a form: no cookie to ride on.
    if (req.method !== 'POST' || req.path.startsWith('/api/') || req.path.startsWith('/scim/') || CROSS_SITE.some((r) => r.test(req.path)))
      return next();
    if (!crossSiteReason(req, authOrigin)) return next();
    const refused = alertPage(
      'Request refused',
      'This form was sent from another site, so nothing was changed. Open the page on this site and try again.',
    );
    render(res, refused, { refusal: 'forbidden' });
  };
}
