/**
 * Pre-step of dynamic client registration (RFC 7591), open to remote MCP clients: only public
 * clients (token_endpoint_auth_method `none`, the default here), only the authorization-code,
 * refresh, ID-JAG, device and token-exchange grants (the device grant, RFC 8628, for clients that
 * are not `web`; one registered for it or for token exchange, RFC 8693, without the
 * authorization-code grant needs no redirect URI: docs/decisions.md "OAuth clients",
 * docs/auth-service.md "Delegation (token exchange)"), and redirect URIs as `application_type` allows (OpenID Connect Dynamic Client
 * Registration §2; MCP 2026-07-28 clients send it): `web` clients https only; `native` clients
 * https, http on a loopback address (RFC 8252 §7.3) or a private-use scheme in reverse-domain form
 * (RFC 8252 §7.1); without `application_type`, https or loopback http, as before clients sent it.
 * Registration is open, and every client is stored: the metadata is bounded (docs/contract.md
 * "Dynamic registration limits": at most 8 KB, a client name of at most 80 characters without
 * control, invisible or direction-changing characters, never a first-party name or a look-alike). A body limit
 * of 56 KB, oidc-provider's own, used to let each registration store about 57 KB.
 */
import { JsonBoundsError, parseJson } from '@svc/bounds';
import express, { type NextFunction, type Request, type Response } from 'express';
import { clientNameProblem } from './client-names.ts';
import { sendOAuthError } from '../http/oauth-error.ts';
import { JWT_BEARER_GRANT } from './id-jag.ts';
import { DEVICE_GRANT } from './clients.ts';
import { TOKEN_EXCHANGE_GRANT } from './token-exchange.ts';

/** docs/contract.md "Dynamic registration limits". */
const MAX_METADATA_BYTES = 8 * 1024;
const readText = express.text({ limit: MAX_METADATA_BYTES, type: () => true });

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);
// A public client may also present ID-JAGs (RFC 7523 §2.1; docs/auth-service.md "Enterprise-managed
// authorization"), run the device flow (RFC 8628; docs/auth-service.md "Registered device clients")
// and exchange a token it holds for a sub-agent's (RFC 8693; docs/auth-service.md "Delegation (token exchange)").
const GRANTS = new Set(['authorization_code', 'refresh_token', JWT_BEARER_GRANT, DEVICE_GRANT, TOKEN_EXCHANGE_GRANT]);
const STATIC_SCOPES = new Set(['openid', 'offline_access', 'email']);

/** RFC 8252 §7.1: a private-use scheme is a reverse domain name (it holds a dot). */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/;
const APPLICATION_TYPES = ['web', 'native'] as const;
type ApplicationType = (typeof APPLICATION_TYPES)[number] | undefined;

const REDIRECT_RULE = {
  web: 'redirect_uris of web clients must be https URLs',
  native:
    'redirect_uris of native clients must be https URLs, http URLs on a loopback address or private-use schemes (com.example.app:/path)',
  default: 'redirect_uris must be https URLs or http URLs on a loopback address',
};

function redirectUriAllowed(uri: unknown, type: ApplicationType): boolean {
  if (typeof uri !== 'string') return false;
  const u = URL.parse(uri);
  if (!u || u.hash) return false;
  const loopbackHttp = u.protocol === 'http:' && LOOPBACK.has(u.hostname);
  if (type === 'web') return u.protocol === 'https:' && !LOOPBACK.has(u.hostname);
  if (type === 'native')
    return (u.protocol === 'https:' && !LOOPBACK.has(u.hostname)) || loopbackHttp || PRIVATE_USE_SCHEME.test(u.protocol);
  return u.protocol === 'https:' || loopbackHttp;
}

function isEmptyList(value: unknown): boolean {
  return Array.isArray(value) && value.length === 0;
}

export function registrationPolicy(req: Request, res: Response, next: NextFunction): void {
  if (req.method !== 'POST') return next();
  if (!req.is('application/json')) return sendOAuthError(res, 'invalid_request', 'registration takes a JSON body (RFC 7591 §3.1)');
  readText(req, res, (err?: unknown) => {
    if ((err as { type?: unknown } | undefined)?.type === 'entity.too.large')
      return sendOAuthError(res, 'invalid_client_metadata', `client metadata may be at most ${MAX_METADATA_BYTES} bytes`);
    if (err) return sendOAuthError(res, 'invalid_request', 'the request body could not be read');
    let body: Record<string, unknown>;
    try {
      body = parseJson(typeof req.body === 'string' ? req.body : '') as Record<string, unknown>;
    } catch (parseErr) {
      return sendOAuthError(
        res,
        'invalid_request',
        parseErr instanceof JsonBoundsError ? parseErr.message : 'the request body is not valid JSON',
      );
    }
    req.body = body;
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      return sendOAuthError(res, 'invalid_request', 'the JSON body must be an object');
    // Language-tagged names (`client_name#fr`, RFC 7591 §2.2) are names too.
    for (const [field, value] of Object.entries(body)) {
      const nameProblem = field === 'client_name' || field.startsWith('client_name#') ? clientNameProblem(value) : null;
      if (nameProblem) return sendOAuthError(res, 'invalid_client_metadata', nameProblem);
    }
    body['token_endpoint_auth_method'] ??= 'none';
    if (body['token_endpoint_auth_method'] !== 'none') {
      return sendOAuthError(res, 'invalid_client_metadata', 'only public clients may register: token_endpoint_auth_method must be none');
    }
    const grants = (body['grant_types'] ??= ['authorization_code', 'refresh_token']);
    if (!Array.isArray(grants) || !grants.every((g) => GRANTS.has(g as string))) {
      return sendOAuthError(
        res,
        'invalid_client_metadata',
        `grant_types may hold authorization_code, refresh_token, ${JWT_BEARER_GRANT}, ${DEVICE_GRANT} and ${TOKEN_EXCHANGE_GRANT} only`,
      );
    }
    // MCP clients register the resource scope (`mcp`, from the protected resource metadata);
    // oidc-provider only knows its own static scopes in client metadata, and resource scopes are
    // granted per resource on approval anyway, so they are dropped from the registration.
    if (typeof body['scope'] === 'string') {
      const kept = body['scope'].split(' ').filter((s) => STATIC_SCOPES.has(s));
      if (kept.length) body['scope'] = kept.join(' ');
      else delete body['scope'];
    }
    const type = body['application_type'];
    if (type !== undefined && !APPLICATION_TYPES.includes(type as 'web')) {
      return sendOAuthError(res, 'invalid_client_metadata', 'application_type must be web or native');
    }
    // RFC 8628 §1: the device grant is for clients without a browser of their own; a web client
    // has one, and has the authorization-code flow.
    if (grants.includes(DEVICE_GRANT) && type === 'web')
      return sendOAuthError(res, 'invalid_client_metadata', `${DEVICE_GRANT} is for native clients, not web ones`);
    // RFC 8628 §3.1: a device-flow client is never redirected to, nor is a sub-agent that only
    // exchanges tokens (RFC 8693 §2). Without the authorization-code grant such a client needs no
    // redirect URI, and no response type (oidc-provider's default `code` would ask for one).
    const redirectless = grants.includes(DEVICE_GRANT) || grants.includes(TOKEN_EXCHANGE_GRANT);
    if (
      redirectless &&
      !grants.includes('authorization_code') &&
      (body['redirect_uris'] === undefined || isEmptyList(body['redirect_uris']))
    ) {
      body['redirect_uris'] = [];
      body['response_types'] ??= [];
      return next();
    }
    const uris = body['redirect_uris'];
    if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u) => redirectUriAllowed(u, type as ApplicationType))) {
      return sendOAuthError(res, 'invalid_redirect_uri', REDIRECT_RULE[(type as ApplicationType) ?? 'default']);
    }
    next();
  });
}
