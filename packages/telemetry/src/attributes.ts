/**
 * The only attributes a span may carry, and the values each may take (docs/operations.md
 * "Traces"). Every exported span passes filterAttributes(): a name not listed here is dropped, so a
 * credential, a cookie, a query string or a request body can never leave in an attribute, whatever
 * a call site sets; and every value comes from a fixed set: one written here (methods, where the
 * trace came from), a name from one of the service's own tables, or a number. A value outside its
 * set is exported as OTHER_VALUE, as OpenTelemetry's semantic conventions do for an unknown HTTP
 * method (`_OTHER`), so what a caller sends is never exported as sent.
 */
import type { Attributes, AttributeValue } from '@opentelemetry/api';
import { MAX_ATTRIBUTE_LENGTH, MAX_ATTRIBUTES_PER_SPAN } from './bounds.ts';

/** What an attribute whose value is outside its set is exported as (OTel semantic conventions, `http.request.method`). */
export const OTHER_VALUE = '_OTHER';

/**
 * MCP's request and notification methods: the well-known values of OpenTelemetry's
 * `mcp.method.name` (semantic conventions for MCP), with MCP 2025-11-25's tasks and MCP
 * 2026-07-28's `server/discover`.
 */
export const MCP_METHODS: ReadonlySet<string> = new Set([
  'completion/complete',
  'elicitation/create',
  'initialize',
  'logging/setLevel',
  'notifications/cancelled',
  'notifications/elicitation/complete',
  'notifications/initialized',
  'notifications/message',
  'notifications/progress',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
  'notifications/roots/list_changed',
  'notifications/tasks/status',
  'notifications/tools/list_changed',
  'ping',
  'prompts/get',
  'prompts/list',
  'resources/list',
  'resources/read',
  'resources/subscribe',
  'resources/templates/list',
  'resources/unsubscribe',
  'roots/list',
  'sampling/createMessage',
  'server/discover',
  'tasks/cancel',
  'tasks/get',
  'tasks/list',
  'tasks/result',
  'tools/call',
  'tools/list',
]);

/** HTTP methods of RFC 9110 §9, PATCH (RFC 5789) and QUERY: OTel's known values of `http.request.method`. */
export const HTTP_METHODS: ReadonlySet<string> = new Set([
  'CONNECT',
  'DELETE',
  'GET',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'POST',
  'PUT',
  'QUERY',
  'TRACE',
]);

/** The MCP method as exported: a known one as it is, anything else OTHER_VALUE. */
export const mcpMethodName = (method: string): string => (MCP_METHODS.has(method) ? method : OTHER_VALUE);
/** The HTTP method as exported: a known one as it is, anything else OTHER_VALUE. */
export const httpMethodName = (method: string): string => (HTTP_METHODS.has(method) ? method : OTHER_VALUE);

/**
 * A name from the service's own tables (a route, a step function, an error code of the catalogue,
 * a tool of the registry, an oidc-provider model or route): letters, digits and `_./:{} -`, short.
 * The exporter holds every such value to this shape, so no escape, newline or long text leaves.
 */
const NAME = /^[A-Za-z0-9_/][A-Za-z0-9_./:{} -]{0,95}$/;
/** An MCP revision is a date (MCP "Versioning"). */
const REVISION = /^\d{4}-\d{2}-\d{2}$/;

type Rule = { set: ReadonlySet<string> } | { pattern: RegExp } | 'count';

/** Each allowed attribute and the values it takes. */
const RULES: Readonly<Record<string, Rule>> = {
  // Our route and step names, and where the caller's trace came from (header, _meta or none).
  'svc.route': { pattern: NAME },
  'svc.step': { pattern: NAME },
  'svc.trace.parent': { set: new Set(['header', 'meta', 'none']) },
  // One of our error codes (@svc/errors), never a message.
  'svc.error.code': { pattern: NAME },
  // How many requests the Redis call of a batch decided (docs/gateway-pipeline.md).
  'svc.admit.batch_size': 'count',
  // The oidc-provider model a Redis adapter call touched (AccessToken, Session, ...).
  'svc.oauth.model': { pattern: NAME },
  'http.request.method': { set: HTTP_METHODS },
  'http.response.status_code': 'count',
  // A route template from our own table, never the path as sent.
  'http.route': { pattern: NAME },
  'mcp.method.name': { set: MCP_METHODS },
  'mcp.protocol.version': { pattern: REVISION },
  // A tool of the registry, never the name as sent.
  'gen_ai.tool.name': { pattern: NAME },
  'db.system.name': { set: new Set(['redis']) },
  'db.operation.name': { pattern: NAME },
};

export const ALLOWED_ATTRIBUTES: ReadonlySet<string> = new Set(Object.keys(RULES));

/** `value` as exported under `rule`: itself when in its set, OTHER_VALUE (or, for a count, nothing) when not. */
function valueOf(rule: Rule, value: AttributeValue): AttributeValue | undefined {
  if (rule === 'count') return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return OTHER_VALUE;
  const known = 'set' in rule ? rule.set.has(value) : rule.pattern.test(value);
  return known ? value.slice(0, MAX_ATTRIBUTE_LENGTH) : OTHER_VALUE;
}

/** The allowed attributes, at most MAX_ATTRIBUTES_PER_SPAN, each value from its set. */
export function filterAttributes(attributes: Attributes): Attributes {
  const out: Attributes = {};
  let count = 0;
  for (const [name, value] of Object.entries(attributes)) {
    const rule = Object.hasOwn(RULES, name) ? RULES[name] : undefined;
    if (!rule || value === undefined) continue;
    const kept = valueOf(rule, value);
    if (kept === undefined) continue;
    if (count++ >= MAX_ATTRIBUTES_PER_SPAN) break;
    out[name] = kept;
  }
  return out;
}

/** A span's name as exported: a name of the service's own (a route, a step, `tools/call <tool>`), else OTHER_VALUE. */
export const spanName = (name: string): string => (NAME.test(name) ? name : OTHER_VALUE);
