/**
 * oidc-provider grants only requested scopes, and ends an authorization that grants none with
 * access_denied (lib/actions/authorization/interactions.js). Device clients (docs/contract.md
 * "Device flow") send only `client_id`, and MCP clients often send no scope.
 * - Device flow: `openid`. The project (the resource) is chosen on the consent page, after the
 *   request; oidc-provider drops non-OpenID scopes from a request without a resource
 *   (check_resource.js filterStatics), so a resource scope could not survive until then. The
 *   token's binding is its audience, not its scope (the gateway checks the audience). A device
 *   client that asks for scopes (a registered MCP client asks for `mcp` and names its resource,
 *   docs/auth-service.md "Registered device clients") has its MCP scopes widened as at the
 *   authorization endpoint, and `openid` added when it names no resource, for the same reasons.
 * - Authorization endpoint: `mcp` when no scope is asked for, and every level when no MCP scope
 *   is (`openid`). The MCP scopes asked for are widened to every level at or below the highest one
 *   (`mcp` means the person's own role, so every level):
 *   the consent page lets the person grant a lower level than the client asked for, and
 *   oidc-provider grants only scopes that were requested (docs/contract.md "OAuth scopes and refresh").
 */
import type { NextFunction, Request, Response } from 'express';
import { isKeyLevel, MCP_SCOPES, scopeForLevel, type KeyLevel } from '@svc/policy';
import { oauthParams } from './body.ts';

const RESOURCE_SCOPE = 'mcp';
const LEVELS: readonly KeyLevel[] = ['VIEWER', 'EDITOR', 'ADMIN'];

/** `scope` with its MCP scopes widened to every level at or below the highest asked for. */
function widenMcpScopes(scope: string): string {
  const asked = scope.split(' ').filter(Boolean);
  const mcp = asked.filter((s) => (MCP_SCOPES as readonly string[]).includes(s));
  // No MCP scope (`openid`, `openid email`) is read as `mcp`: the token's scope then says the level
  // approved on the consent page, which the Grant records whatever was asked (consent-levels.ts).
  const top = mcp.length === 0 || mcp.includes('mcp') ? 'ADMIN' : LEVELS.findLast((l) => mcp.includes(scopeForLevel(l)));
  const levels = isKeyLevel(top) ? LEVELS.slice(0, LEVELS.indexOf(top) + 1).map(scopeForLevel) : [];
  return [...new Set([...asked, ...levels])].join(' ');
}

/** POST /api/oauth/device/code (after oauthFormBody). */
export function defaultDeviceScope(req: Request, res: Response, next: NextFunction): void {
  const params = oauthParams(res);
  const asked = params.get('scope');
  let scope = asked ? widenMcpScopes(asked) : 'openid';
  if (!params.get('resource') && !scope.split(' ').includes('openid')) scope = `openid ${scope}`;
  if (scope !== asked) {
    params.set('scope', scope);
    req.body = params.toString();
  }
  next();
}

/** GET /api/oauth/authorize. */
export function defaultAuthorizeScope(req: Request, _res: Response, next: NextFunction): void {
  const q = req.url.indexOf('?');
  const params = new URLSearchParams(q >= 0 ? req.url.slice(q + 1) : '');
  const scope = widenMcpScopes(params.get('scope') || RESOURCE_SCOPE);
  if (scope !== params.get('scope')) {
    params.set('scope', scope);
    req.url = `${q >= 0 ? req.url.slice(0, q) : req.url}?${params.toString()}`;
  }
  next();
}
