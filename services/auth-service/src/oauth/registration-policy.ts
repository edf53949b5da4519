/**
 * Pre-step of dynamic client registration (RFC 7591), open to remote MCP clients: only public
 * clients (token_endpoint_auth_method `none`, the default here), only the authorization-code and
 * refresh grants, and redirect URIs that are https or http on a loopback address (RFC 8252 §7.3).
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { sendOAuthError } from './oauth-error.ts';

const readJson = express.json({ limit: 56 * 1024, type: () => true });
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);
const GRANTS = new Set(['authorization_code', 'refresh_token']);
const STATIC_SCOPES = new Set(['openid', 'offline_access', 'email']);

function redirectUriAllowed(uri: unknown): boolean {
  if (typeof uri !== 'string') return false;
  const u = URL.parse(uri);
  if (!u || u.hash) return false;
  return u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK.has(u.hostname));
}

export function registrationPolicy(req: Request, res: Response, next: NextFunction): void {
  if (req.method !== 'POST') return next();
  if (!req.is('application/json')) return sendOAuthError(res, 'invalid_request', 'registration takes a JSON body (RFC 7591 §3.1)');
  readJson(req, res, (err?: unknown) => {
    if (err) return sendOAuthError(res, 'invalid_request', 'the request body is not valid JSON');
    const body = req.body as Record<string, unknown>;
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      return sendOAuthError(res, 'invalid_request', 'the JSON body must be an object');
    body['token_endpoint_auth_method'] ??= 'none';
    if (body['token_endpoint_auth_method'] !== 'none') {
      return sendOAuthError(res, 'invalid_client_metadata', 'only public clients may register: token_endpoint_auth_method must be none');
    }
    const grants = (body['grant_types'] ??= ['authorization_code', 'refresh_token']);
    if (!Array.isArray(grants) || !grants.every((g) => GRANTS.has(g as string))) {
      return sendOAuthError(res, 'invalid_client_metadata', 'grant_types may hold authorization_code and refresh_token only');
    }
    // MCP clients register the resource scope (`mcp`, from the protected resource metadata);
    // oidc-provider only knows its own static scopes in client metadata, and resource scopes are
    // granted per resource on approval anyway, so they are dropped from the registration.
    if (typeof body['scope'] === 'string') {
      const kept = body['scope'].split(' ').filter((s) => STATIC_SCOPES.has(s));
      if (kept.length) body['scope'] = kept.join(' ');
      else delete body['scope'];
    }
    const uris = body['redirect_uris'];
    if (!Array.isArray(uris) || uris.length === 0 || !uris.every(redirectUriAllowed)) {
      return sendOAuthError(res, 'invalid_redirect_uri', 'redirect_uris must be https URLs or http URLs on a loopback address');
    }
    next();
  });
}
