/**
 * The error catalogue (docs/contract.md "Errors"). Every refusal the services
 * send is an SvcError of one of these codes; toJsonRpcError() and toRestError() are the only places
 * that turn one into a body. The public message never holds internal detail: that goes in
 * `detail`, which is logged with the request id and never sent.
 */
export type ErrorCode =
  | 'missing_authentication'
  | 'invalid_api_key'
  | 'invalid_token'
  | 'invalid_dpop_proof'
  | 'rate_limited'
  | 'quota_exhausted'
  | 'access_denied'
  | 'insufficient_scope'
  | 'step_up_required'
  | 'method_not_allowed'
  | 'not_found'
  | 'invalid_request'
  | 'parse_error'
  | 'method_not_found'
  | 'invalid_params'
  | 'payload_too_large'
  | 'body_too_complex'
  | 'unsupported_media_type'
  | 'not_acceptable'
  | 'forbidden_origin'
  | 'header_mismatch'
  | 'unsupported_protocol_version'
  | 'service_unavailable'
  | 'conflict'
  | 'upstream_failed'
  | 'internal_error';

interface CatalogueEntry {
  status: number;
  message: string;
  remedy: string;
  /**
   * JSON-RPC error code on the MCP endpoints, one per error and the same in every protocol
   * revision (docs/errors.md): JSON-RPC 2.0's own codes and MCP 2026-07-28's -32020/-32022 for what
   * they mean; the project's own errors in -31001..-31099, outside the range JSON-RPC reserves.
   */
  rpc: number;
}

const ERROR_CATALOGUE = {
  missing_authentication: {
    status: 401,
    message: 'Missing authentication',
    remedy: 'Send the X-API-Key header (or Authorization: Bearer with an OAuth access token).',
    rpc: -31001,
  },
  invalid_api_key: {
    status: 401,
    message: 'Invalid API key',
    remedy: 'The key is unknown, revoked or expired: get a new personal key with `svc login`, or ask a project admin for a new key.',
    rpc: -31002,
  },
  invalid_token: {
    status: 401,
    message: 'Invalid OAuth token',
    remedy: 'Refresh the access token with the refresh_token, or sign in again; user-key flows return a reusable key.',
    rpc: -31003,
  },
  invalid_dpop_proof: {
    status: 401,
    message: 'Invalid DPoP proof',
    remedy:
      'Send a new DPoP proof (RFC 9449 §4) for this request: its method, URL and access token, signed by the key the token is bound to, with a fresh jti and iat.',
    rpc: -31004,
  },
  access_denied: {
    status: 403,
    message: 'Access denied',
    remedy: "Call svc_request_access to ask the project's admins for a higher level.",
    rpc: -31010,
  },
  insufficient_scope: {
    status: 403,
    message: 'Insufficient scope',
    remedy: 'Your role allows this call but the token was granted a lower level: authorize again with the scope in WWW-Authenticate.',
    rpc: -31011,
  },
  step_up_required: {
    status: 403,
    message: 'Step-up required',
    remedy: 'Do this on the dashboard, which asks for your second factor first; a token carries no recent second factor.',
    rpc: -31012,
  },
  rate_limited: {
    status: 429,
    message: 'Rate limit exceeded',
    remedy: 'Wait until the window resets (Retry-After) and retry with backoff.',
    rpc: -31020,
  },
  quota_exhausted: {
    status: 429,
    message: 'Monthly query limit reached',
    remedy: "Wait for the reset at 00:00 UTC on the first of next month, or upgrade the workspace's plan.",
    rpc: -31021,
  },
  not_found: { status: 404, message: 'Not found', remedy: 'Check the project or team slug in the URL.', rpc: -31030 },
  conflict: { status: 409, message: 'Conflict', remedy: 'Reload the current state and decide again.', rpc: -31031 },
  method_not_allowed: { status: 405, message: '405 Method Not Allowed', remedy: 'Check the route, the method and the host.', rpc: -31040 },
  forbidden_origin: { status: 403, message: 'Origin not allowed', remedy: 'Call from an allowed origin (ALLOWED_ORIGINS).', rpc: -31041 },
  payload_too_large: { status: 413, message: 'Request body too large', remedy: 'Send a smaller body.', rpc: -31042 },
  body_too_complex: {
    status: 400,
    message: 'Request body too complex',
    remedy: 'Send JSON nested at most 64 levels deep, with at most 10,000 values.',
    rpc: -31045,
  },
  unsupported_media_type: { status: 415, message: 'Unsupported Media Type', remedy: 'Send Content-Type: application/json.', rpc: -31043 },
  not_acceptable: { status: 406, message: 'Not Acceptable', remedy: 'Accept application/json (and text/event-stream).', rpc: -31044 },
  service_unavailable: { status: 503, message: 'Service temporarily unavailable', remedy: 'Retry shortly.', rpc: -31050 },
  upstream_failed: {
    status: 502,
    message: 'The upstream server failed',
    remedy:
      "The project's upstream MCP server did not answer the call as it should: retry later, or tell the project's admins (error.data.reason says why).",
    rpc: -31060,
  },
  parse_error: { status: 400, message: 'Parse error', remedy: 'Send a well-formed JSON body.', rpc: -32700 },
  invalid_request: { status: 400, message: 'Invalid request', remedy: 'Send a single JSON-RPC 2.0 request object.', rpc: -32600 },
  method_not_found: {
    status: 404,
    message: 'Method not found',
    remedy: 'Call server/discover or tools/list for what is offered.',
    rpc: -32601,
  },
  invalid_params: { status: 400, message: 'Invalid params', remedy: "Check the method's parameters.", rpc: -32602 },
  internal_error: { status: 500, message: 'Internal error', remedy: 'Retry; if it persists, report the request id.', rpc: -32603 },
  header_mismatch: {
    status: 400,
    message: 'Header mismatch',
    remedy: 'Send MCP-Protocol-Version, Mcp-Method and (for tools/call) Mcp-Name equal to the body (MCP 2026-07-28).',
    rpc: -32020,
  },
  unsupported_protocol_version: {
    status: 400,
    message: 'Unsupported protocol version',
    remedy: 'Use one of the versions listed in error.data.supported.',
    rpc: -32022,
  },
} as const satisfies Record<ErrorCode, CatalogueEntry>;

/** Every error's public code, HTTP status and JSON-RPC code, for the docs and the tests. */
export const ERROR_CODES: readonly { code: ErrorCode; status: number; rpc: number; message: string }[] = Object.entries(
  ERROR_CATALOGUE,
).map(([code, e]) => ({ code: code as ErrorCode, status: e.status, rpc: e.rpc, message: e.message }));

export interface SvcErrorOptions {
  /** Replaces the catalogue message (for errors whose message names the problem, e.g. parse errors). */
  message?: string;
  remedy?: string;
  /** Internal detail: logged, never sent. */
  detail?: string;
  headers?: Record<string, string>;
  /** Extra public fields for error.data. */
  data?: Record<string, unknown>;
  /**
   * On JSON-RPC endpoints, a method error answered with HTTP 200 (the request was fine, the call
   * was refused: a policy refusal, an unknown tool). REST answers always use `status`.
   */
  inBody?: boolean;
  /**
   * The authentication scheme a 401's challenge names: `DPoP` for a refused DPoP proof or a
   * DPoP-bound token (RFC 9449 §7.1), `Bearer` (RFC 6750 §3) otherwise.
   */
  scheme?: 'Bearer' | 'DPoP';
}

export class SvcError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly remedy: string;
  readonly detail: string | undefined;
  readonly headers: Record<string, string>;
  readonly data: Record<string, unknown>;
  readonly inBody: boolean;
  readonly scheme: 'Bearer' | 'DPoP';

  constructor(code: ErrorCode, options: SvcErrorOptions = {}) {
    const entry: CatalogueEntry = ERROR_CATALOGUE[code];
    super(options.message ?? entry.message);
    this.name = 'SvcError';
    this.code = code;
    this.status = entry.status;
    this.remedy = options.remedy ?? entry.remedy;
    this.detail = options.detail;
    this.headers = options.headers ?? {};
    this.data = options.data ?? {};
    this.inBody = options.inBody ?? false;
    this.scheme = options.scheme ?? (code === 'invalid_dpop_proof' ? 'DPoP' : 'Bearer');
  }

  get rpcCode(): number {
    return ERROR_CATALOGUE[this.code].rpc;
  }
}

/** Anything thrown, as an SvcError: unknown errors become internal_error with their text as detail. */
export function asSvcError(err: unknown): SvcError {
  if (err instanceof SvcError) return err;
  const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return new SvcError('internal_error', { detail });
}

export type JsonRpcId = string | number | null;

/** The JSON-RPC 2.0 error response for an error on an MCP endpoint. */
export function toJsonRpcError(err: SvcError, id: JsonRpcId) {
  return {
    jsonrpc: '2.0' as const,
    id,
    error: { code: err.rpcCode, message: err.message, data: { code: err.code, remedy: err.remedy, ...err.data } },
  };
}

/** The REST error body: {"error": {"code", "message", "remedy"}}. */
export function toRestError(err: SvcError) {
  return { error: { code: err.code, message: err.message, remedy: err.remedy, ...err.data } };
}

export { oauthAnswer, pageRefusalOf, pageStatus, REFUSAL_FAMILIES, type OAuthRefusal, type PageRefusal } from './families.ts';
export { DENIAL_META_KEY, DENIALS_EXTENSION, denialMeta, type DenialEnvelope, type RemediationHint } from './denials.ts';
export { SCIM_REFUSALS, ScimError, scimErrorBody, scimStatus } from './scim.ts';
