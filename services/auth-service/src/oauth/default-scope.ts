/**
 * oidc-provider grants only requested scopes, and ends an authorization that grants none with
 * access_denied (lib/actions/authorization/interactions.js). Device clients (docs/contract.md
 * "Device flow") send only `client_id`, and MCP clients often send no scope.
 * - Device flow: `openid`. The project (the resource) is chosen on the consent page, after the
 *   request; oidc-provider drops non-OpenID scopes from a request without a resource
 *   (check_resource.js filterStatics), so a resource scope could not survive until then. The
 *   token's binding is its audience, not its scope (the gateway checks the audience).
 * - Authorization endpoint: `mcp`, the scope of every project resource (configuration.ts).
 */
import type { NextFunction, Request, Response } from 'express';
import { oauthParams } from './body.ts';

const RESOURCE_SCOPE = 'mcp';

/** POST /api/oauth/device/code (after oauthFormBody). */
export function defaultDeviceScope(req: Request, res: Response, next: NextFunction): void {
  const params = oauthParams(res);
  if (!params.get('scope')) {
    params.set('scope', 'openid');
    req.body = params.toString();
  }
  next();
}

/** GET /api/oauth/authorize. */
export function defaultAuthorizeScope(req: Request, _res: Response, next: NextFunction): void {
  const q = req.url.indexOf('?');
  const params = new URLSearchParams(q >= 0 ? req.url.slice(q + 1) : '');
  if (!params.get('scope')) {
    params.set('scope', RESOURCE_SCOPE);
    req.url = `${q >= 0 ? req.url.slice(0, q) : req.url}?${params.toString()}`;
  }
  next();
}
