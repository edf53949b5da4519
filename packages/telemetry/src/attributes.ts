/**
 * The only attribute names a span may carry (docs/operations.md "Traces"). Every exported span
 * passes filterAttributes(): a name not listed here is dropped, so a credential, a cookie, a
 * query string or a request body can never leave in an attribute, whatever a call site sets.
 */
import type { Attributes } from '@opentelemetry/api';
import { MAX_ATTRIBUTE_LENGTH, MAX_ATTRIBUTES_PER_SPAN } from './bounds.ts';

export const ALLOWED_ATTRIBUTES: ReadonlySet<string> = new Set([
  // Our route and step names, and where the caller's trace came from (header, _meta or none).
  'svc.route',
  'svc.step',
  'svc.trace.parent',
  // One of our error codes (@svc/errors), never a message.
  'svc.error.code',
  // How many requests the Redis call of a batch decided (docs/gateway-pipeline.md).
  'svc.admit.batch_size',
  // The oidc-provider model a Redis adapter call touched (AccessToken, Session, ...).
  'svc.oauth.model',
  'http.request.method',
  'http.response.status_code',
  // A route template from our own table, never the path as sent.
  'http.route',
  'mcp.method.name',
  'mcp.protocol.version',
  'gen_ai.tool.name',
  'db.system.name',
  'db.operation.name',
]);

/** The allowed attributes, at most MAX_ATTRIBUTES_PER_SPAN, strings cut to MAX_ATTRIBUTE_LENGTH. */
export function filterAttributes(attributes: Attributes): Attributes {
  const out: Attributes = {};
  let count = 0;
  for (const [name, value] of Object.entries(attributes)) {
    if (!ALLOWED_ATTRIBUTES.has(name) || value === undefined) continue;
    if (count++ >= MAX_ATTRIBUTES_PER_SPAN) break;
    out[name] = typeof value === 'string' ? value.slice(0, MAX_ATTRIBUTE_LENGTH) : value;
  }
  return out;
}
