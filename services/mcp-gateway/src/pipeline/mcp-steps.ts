/**
 * The MCP-specific steps of POST /mcp/<slug> (docs/mcp-revisions.md). The revision is decided per
 * request after the caller is known, so a client without credentials always gets the 401 that
 * starts OAuth, whatever revision it claims.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { SvcError } from '@svc/errors';
import { asRequest, idOf } from '../mcp/envelope.ts';
import { isLegacyVersion, isModernVersion, META, SUPPORTED_PROTOCOL_VERSIONS, TASKS_EXTENSION } from '../mcp/protocol.ts';
import type { MethodHandler } from '../methods/types.ts';
import { prepareCall } from '../methods/prepare-call.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { ToolCaller } from '../tools/types.ts';
import type { Exchange, Step } from './exchange.ts';
import { progressRelay } from './progress-stream.ts';
import { jsonTextWith, sizedJsonText, type SizedText } from '../http/json-text.ts';
import { respondEmpty, respondText } from './run.ts';

/** The JSON-RPC request object, or the error naming what is wrong with it. */
export const parseEnvelope: Step = function parseEnvelope(ex) {
  if (ex.parseError) throw ex.parseError;
  ex.id = idOf(ex.body);
  ex.rpc = asRequest(ex.body);
};

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

function unsupported(requested: string): SvcError {
  return new SvcError('unsupported_protocol_version', {
    message: `Unsupported protocol version: ${requested.slice(0, 50)}`,
    data: { supported: [...SUPPORTED_PROTOCOL_VERSIONS], requested: requested.slice(0, 50) },
  });
}

/**
 * Which revision serves this request: the 2026-07-28 `_meta` claim (or its header) selects the
 * modern rules, anything else the earlier ones. MCP 2026-07-28 "Protocol Version Header" and
 * "Request Metadata".
 */
export const selectRevision: Step = function selectRevision(ex) {
  const rpc = ex.rpc!;
  const meta = rpc.params?.['_meta'];
  const claimed = meta && typeof meta === 'object' ? (meta as Record<string, unknown>)[META.protocolVersion] : undefined;
  const headerVersion = header(ex.req.headers, 'mcp-protocol-version')?.trim();
  if (claimed === undefined) {
    if (headerVersion === undefined || isLegacyVersion(headerVersion)) {
      ex.era = 'legacy';
      ex.version = headerVersion ?? '2025-03-26';
      return;
    }
    if (isModernVersion(headerVersion))
      throw new SvcError('invalid_params', {
        message: `Invalid params: _meta["${META.protocolVersion}"] is required with MCP-Protocol-Version ${headerVersion}`,
      });
    throw unsupported(headerVersion);
  }
  if (typeof claimed !== 'string')
    throw new SvcError('invalid_params', { message: `Invalid params: _meta["${META.protocolVersion}"] must be a string` });
  // The header must mirror the claim before the claim itself is judged (MCP 2026-07-28 "Server Validation").
  if (headerVersion !== claimed)
    throw new SvcError('header_mismatch', {
      message:
        headerVersion === undefined
          ? 'Header mismatch: the MCP-Protocol-Version header is missing'
          : `Header mismatch: MCP-Protocol-Version ${headerVersion.slice(0, 50)} does not match _meta version ${claimed}`,
    });
  if (!isModernVersion(claimed)) throw unsupported(claimed);
  const capabilities = (meta as Record<string, unknown>)[META.clientCapabilities];
  if (capabilities === null || typeof capabilities !== 'object' || Array.isArray(capabilities))
    throw new SvcError('invalid_params', { message: `Invalid params: _meta["${META.clientCapabilities}"] is required (an object)` });
  ex.era = 'modern';
  ex.version = claimed;
  checkMirroredHeaders(ex);
};

/** MCP 2026-07-28 "Encoded header values": `=?base64?...?=` carries UTF-8 that a header cannot. */
function decodeHeaderValue(raw: string): string | null {
  const v = raw.trim();
  if (!v.startsWith('=?base64?') || !v.endsWith('?=')) return /^[\x20-\x7e\t]*$/.test(v) ? v : null;
  const b64 = v.slice('=?base64?'.length, -2);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) return null;
  return Buffer.from(b64, 'base64').toString('utf8');
}

/** MCP 2026-07-28 "Server Validation": Mcp-Method (and Mcp-Name for tools/call) equal the body. */
function checkMirroredHeaders(ex: Exchange): void {
  const rpc = ex.rpc!;
  const method = header(ex.req.headers, 'mcp-method');
  if (method === undefined) throw new SvcError('header_mismatch', { message: 'Header mismatch: the Mcp-Method header is missing' });
  if (method.trim() !== rpc.method)
    throw new SvcError('header_mismatch', {
      message: `Header mismatch: Mcp-Method ${method.trim().slice(0, 60)} does not match body method ${rpc.method.slice(0, 60)}`,
    });
  if (rpc.method !== 'tools/call') return;
  const nameHeader = header(ex.req.headers, 'mcp-name');
  if (nameHeader === undefined) throw new SvcError('header_mismatch', { message: 'Header mismatch: the Mcp-Name header is missing' });
  const name = decodeHeaderValue(nameHeader);
  if (name === null) throw new SvcError('header_mismatch', { message: 'Header mismatch: the Mcp-Name header is malformed' });
  const bodyName = rpc.params?.['name'];
  if (name !== bodyName)
    throw new SvcError('header_mismatch', {
      message: `Header mismatch: Mcp-Name ${name.slice(0, 60)} does not match body name ${String(bodyName).slice(0, 60)}`,
    });
}

/** A notification (no id): accepted with 202 and no body (Streamable HTTP "Sending Messages"). */
export const acceptNotification: Step = function acceptNotification(ex) {
  if (ex.rpc!.id === undefined || ex.rpc!.id === null) {
    respondEmpty(ex, 202);
  }
};

/** The methods of each revision; anything else is unknown (2026-07-28: HTTP 404, -32601). */
export interface MethodTable {
  modern: ReadonlyMap<string, MethodHandler>;
  legacy: ReadonlyMap<string, MethodHandler>;
}

export function resolveMethod(methods: MethodTable): Step {
  return function resolveMethod(ex) {
    if (ex.rpc!.id === undefined || ex.rpc!.id === null) return; // a notification: acceptNotification answers it
    const name = ex.rpc!.method;
    // A Map, never a plain object: `constructor` or `__proto__` must not reach Object.prototype.
    if (methods[ex.era].has(name)) return;
    throw new SvcError('method_not_found', {
      message: `Method not found: ${name.slice(0, 100)}`,
      inBody: ex.era === 'legacy',
      remedy:
        ex.era === 'modern'
          ? 'MCP 2026-07-28 offers server/discover, tools/list and tools/call here.'
          : 'Call tools/list for what is offered.',
    });
  };
}

/** tools/call: the tool, the policy's decision and the arguments, settled before the rate limiter. */
export function prepareToolCall(registry: ToolRegistry, legacyNames: boolean): Step {
  return function prepareToolCall(ex) {
    if (ex.rpc!.method !== 'tools/call') return;
    ex.prepared = prepareCall(ex.toolSet ?? registry, ex.rpc!.params ?? {}, ex.policy!, legacyNames);
    if (ex.prepared.legacyName) ex.legacy = true;
  };
}

/** Whether the request's client capabilities name the MCP Tasks extension (SEP-2663 "Capability negotiation"). */
function declaresTasks(params: Record<string, unknown> | undefined): boolean {
  const meta = params?.['_meta'] as Record<string, unknown> | undefined;
  const capabilities = meta?.[META.clientCapabilities] as Record<string, unknown> | undefined;
  const extensions = capabilities?.['extensions'];
  return extensions !== null && typeof extensions === 'object' && Object.hasOwn(extensions, TASKS_EXTENSION);
}

/** What a 2026-07-28 result carries besides its content (MCP 2026-07-28 "Caching", "Discovery"). */
export interface ModernResultOptions {
  serverInfo: { name: string; title: string; version: string };
  /** ttlMs of tools/list and server/discover: how long a client may keep the list. */
  listTtlMs: number;
}

const CACHEABLE = new Set(['tools/list', 'server/discover']);

/** A 2026-07-28 result: the handler's result with resultType, serverInfo and, for lists, ttlMs and cacheScope. */
function modernResult(result: Record<string, unknown>, method: string, modern: ModernResultOptions): Record<string, unknown> {
  const meta = { ...(result['_meta'] as Record<string, unknown> | undefined), [META.serverInfo]: modern.serverInfo };
  const full = { resultType: 'complete', ...result, _meta: meta };
  // The list depends on who asks (the policy filters it): private to this authorization.
  return CACHEABLE.has(method) ? { ...full, ttlMs: modern.listTtlMs, cacheScope: 'private' } : full;
}

export function dispatch(methods: MethodTable, toolCallerOf: (ex: Exchange) => ToolCaller, modern: ModernResultOptions): Step {
  // What modernResult adds to a result, per method, and its JSON text without the braces.
  const added = new Map(
    [...methods.modern.keys()].map((method) => {
      const members = modernResult({}, method, modern);
      const text = JSON.stringify(members).slice(1, -1);
      return [method, { members, text, bytes: Buffer.byteLength(text) }];
    }),
  );
  return async function dispatch(ex) {
    const rpc = ex.rpc!;
    const handler = methods[ex.era].get(rpc.method)!;
    const toolCaller = toolCallerOf(ex);
    const progress = progressRelay(ex);
    if (progress) toolCaller.progress = progress;
    const result = (await handler(rpc.params ?? {}, {
      caller: ex.caller!,
      toolCaller,
      policy: ex.policy!,
      requestId: ex.requestId,
      prepared: ex.prepared,
      toolSet: ex.toolSet,
      tasks: ex.era === 'modern' && declaresTasks(rpc.params),
    })) as Record<string, unknown>;
    let sized: SizedText;
    if (ex.era === 'legacy') sized = sizedJsonText(result);
    else {
      const { members, text: membersText, bytes } = added.get(rpc.method)!;
      // Joined as text when the result has none of those members itself (no _meta of its own).
      sized = jsonTextWith(result, members, membersText, bytes) ?? sizedJsonText(modernResult(result, rpc.method, modern));
    }
    // The envelope around the result's text: a kept result is neither serialized nor measured again
    // (http/json-text.ts), so the joined text is flattened once, when it is written.
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(rpc.id)},"result":`;
    respondText(ex, `${head}${sized.text}}`, 200, undefined, sized.bytes === null ? null : Buffer.byteLength(head) + sized.bytes + 1);
  };
}
