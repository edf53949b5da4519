/**
 * One request as it travels a gateway route (docs/gateway-pipeline.md): what the steps have learnt
 * so far and the response headers they have settled. A step reads and fills it; the route's
 * error writer turns whatever a step throws into the protocol's error body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonRpcId } from '@svc/errors';
import type { Actor } from '@svc/management';
import type { CallerContext, Surface } from '@svc/policy';
import type { ResolvedCaller, Target } from '../auth/caller.ts';
import type { CheckedProof } from '../auth/dpop-binding.ts';
import type { EventStream } from '../http/event-stream.ts';
import type { Headers } from '../http/respond.ts';
import type { JsonRpcRequest } from '../mcp/envelope.ts';
import type { Era } from '../mcp/protocol.ts';
import type { PreparedCall } from '../methods/prepare-call.ts';
import type { ToolLookup } from '../tools/registry.ts';

/** How a route answers, success and error alike. */
export type Protocol = 'jsonrpc' | 'rest';

export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly requestId: string;
  /** The client's address: the TCP peer, or what named proxies forwarded (docs/operations.md "Proxies"). */
  readonly source: string;
  /** What the request speaks to: set from the path by the route's first step (pipeline/path-steps.ts). */
  target: Target;
  readonly protocol: Protocol;
  /** The path as sent, without the query (error messages name it). */
  readonly path: string;
  /** Parameters the route matched in the path, percent-decoded as the route reads them. */
  params: Readonly<Record<string, string>>;
  /** Response headers settled so far (CORS, request id, rate limit, Deprecation). */
  headers: Headers;
  /** The body as read (readBody). */
  raw: string;
  /** The parsed JSON body, or the parse error kept until the caller is known. */
  body: unknown;
  parseError: Error | null;
  /** JSON-RPC: the request id once readable (error responses echo it), and the request. */
  id: JsonRpcId;
  rpc: JsonRpcRequest | null;
  era: Era;
  version: string;
  caller: ResolvedCaller | null;
  /** The DPoP proof checked by authenticate, until its jti is claimed (the rate-limit call, or alone). */
  proof: CheckedProof | null;
  surface: Surface;
  policy: CallerContext | null;
  /** tools/call, and the REST tool route: the tool and the policy's decision. */
  prepared: PreparedCall | null;
  /** A project's tools, its upstream servers' beside the built-in ones (loadToolSet); null: the built-in ones. */
  toolSet: ToolLookup | null;
  /** A legacy credential or tool name was used: the response carries a Deprecation header. */
  legacy: boolean;
  /** The management API: who is acting (managementActor). */
  actor: Actor | null;
  /** The answer, once it is streaming (a tools/call relaying progress): its response or error goes there last. */
  events?: EventStream;
}

/** One named unit of a route. It mutates the exchange, may answer (then the route ends), or throws. */
export type Step = (ex: Exchange) => void | Promise<void>;

export function newExchange(
  req: IncomingMessage,
  res: ServerResponse,
  init: {
    requestId: string;
    source: string;
    target: Target;
    protocol: Protocol;
    headers: Headers;
    path?: string;
    params?: Record<string, string>;
  },
): Exchange {
  return {
    req,
    res,
    requestId: init.requestId,
    source: init.source,
    target: init.target,
    protocol: init.protocol,
    path: init.path ?? '',
    params: init.params ?? {},
    headers: { ...init.headers, 'X-Request-Id': init.requestId },
    raw: '',
    body: undefined,
    parseError: null,
    id: null,
    rpc: null,
    era: 'legacy',
    version: '',
    caller: null,
    proof: null,
    surface: 'hosted',
    policy: null,
    prepared: null,
    toolSet: null,
    legacy: false,
    actor: null,
  };
}

/** The caller, once the authenticate step has run (a step before it asking is a wiring bug). */
export function callerOf(ex: Exchange): ResolvedCaller {
  if (!ex.caller) throw new Error('pipeline: a step needs the caller before authenticate ran');
  return ex.caller;
}
