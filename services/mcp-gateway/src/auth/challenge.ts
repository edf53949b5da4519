/** The WWW-Authenticate challenge of every 401 and 403 the gateway answers. */
import { DPOP_SIGNING_ALGS } from '@svc/credentials';
import type { SvcError } from '@svc/errors';
import type { Target } from './caller.ts';

/**
 * RFC 6750 §3 / RFC 9728 §5.1: the 401 challenge points at the resource's metadata and names the
 * scope to ask for (MCP 2026-07-28 authorization: `scope`, never offline_access). Every route's 401
 * carries the same challenge; account routes have no resource metadata of their own. A refused
 * DPoP proof or DPoP-bound token is challenged with the DPoP scheme and the algorithms accepted
 * (RFC 9449 §7.1).
 */
export function challenge(baseUrl: string, target: Target, err: SvcError): string {
  const metadata = `resource_metadata="${baseUrl}/.well-known/oauth-protected-resource/mcp/${encodeURIComponent(target.slug)}"`;
  // RFC 6750 §3.1: the scope the call needs, so the client can authorize again with it.
  if (err.code === 'insufficient_scope') return `Bearer error="insufficient_scope", scope="${String(err.data['scope'])}", ${metadata}`;
  const parts = [err.scheme === 'DPoP' ? 'DPoP realm="svc"' : 'Bearer realm="svc"'];
  if (target.kind === 'project') {
    parts.push(metadata);
    parts.push('scope="mcp"');
  }
  if (err.scheme === 'DPoP') parts.push(`algs="${DPOP_SIGNING_ALGS.join(' ')}"`);
  if (err.code === 'invalid_token' || err.code === 'invalid_api_key')
    parts.push(`error="invalid_token", error_description="${err.message}"`);
  if (err.code === 'invalid_dpop_proof') parts.push(`error="invalid_dpop_proof", error_description="${err.message}"`);
  return parts.join(', ');
}
