/**
 * svc's MCP client of upstream servers (docs/upstream-servers.md "How svc talks to an upstream"):
 * Streamable HTTP POSTs through the guarded outgoing client (@svc/bounds: addresses checked,
 * per-workspace shares of the `tools` lane, time and size bounded), speaking either revision:
 * 2026-07-28 when the upstream answers `server/discover` with it (no session; `_meta` and the
 * `Mcp-Method`/`Mcp-Name` headers on every request), else 2025-11-25 and earlier (`initialize`,
 * `notifications/initialized`, and the `Mcp-Session-Id` the upstream gives, kept per upstream in
 * this process and opened again when the upstream forgets it).
 */
import { BlockList } from 'node:net';
import { CimdFetchRefused, createCimdFetch, isSpecialUseAddress, type GuardedInit } from '@svc/bounds/guarded-fetch.ts';
import { readAnswer, UpstreamFailure, type Answer } from './answer.ts';
import { UPSTREAM_LIMITS } from './limits.ts';
import type { UpstreamEra } from './types.ts';

const MODERN_VERSION = '2026-07-28';
const LEGACY_VERSION = '2025-11-25';
const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
} as const;
const CLIENT_INFO = { name: 'svc-gateway', version: '1' };

type Fetch = (url: string, init: GuardedInit) => Promise<Response>;

/** One upstream as a request to it needs it. */
export interface Endpoint {
  url: string;
  timeoutMs: number;
  /** The static credential's header and value, opened (never logged). */
  credential: { header: string; value: string } | null;
  /** Whose share of the outbound pools the request takes: the project's workspace. */
  tenant: string;
  era: UpstreamEra | null;
  /**
   * A token for one request (each its own jti: a verifier refuses one seen before), naming the tool
   * a tools/call calls. Every request carries one, the handshake's too: an upstream behind svc
   * checks every request.
   */
  token: (tool: string | undefined) => Promise<string>;
}

/** How the upstream was spoken to: its revision, version and (legacy, stateful) session. */
interface Session {
  era: UpstreamEra;
  version: string;
  id: string | null;
}

/** A CIDR block an operator allows upstreams in (UPSTREAM_ALLOWED_PRIVATE). */
export interface AllowedBlock {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

export interface ClientOptions {
  allowedPrivate: readonly AllowedBlock[];
  /** Instead of the guarded client: tests of the bounds only. */
  fetch?: Fetch;
}

/** The header svc's forwarded token goes in: Authorization, unless the static credential takes it. */
const FORWARDED_TOKEN_HEADER = 'Svc-Forwarded-Token';

export class UpstreamClient {
  private readonly fetch: Fetch;
  private readonly sessions = new Map<string, Promise<Session>>();
  private nextId = 1;

  constructor(options: ClientOptions) {
    const allowed = new BlockList();
    for (const b of options.allowedPrivate) allowed.addSubnet(b.address, b.prefix, b.family);
    this.fetch =
      options.fetch ??
      createCimdFetch({
        refuse: (address) => isSpecialUseAddress(address) && !allowed.check(address, address.includes(':') ? 'ipv6' : 'ipv4'),
        lane: 'tools',
        maxBytes: UPSTREAM_LIMITS.answerBytes,
        anyStatus: true,
        keepAlive: true,
      });
  }

  /** Which revision the upstream speaks, learnt afresh (registration and refresh). */
  async handshake(endpoint: Endpoint): Promise<{ era: UpstreamEra; version: string }> {
    this.sessions.delete(sessionKey(endpoint));
    const session = await this.session({ ...endpoint, era: null, timeoutMs: UPSTREAM_LIMITS.discoveryTimeoutMs });
    return { era: session.era, version: session.version };
  }

  /** Every tool the upstream lists, page after page (at most UPSTREAM_LIMITS.listPages). */
  async listTools(endpoint: Endpoint): Promise<unknown[]> {
    const tools: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < UPSTREAM_LIMITS.listPages; page++) {
      const { result } = await this.request(
        { ...endpoint, timeoutMs: UPSTREAM_LIMITS.discoveryTimeoutMs },
        'tools/list',
        cursor ? { cursor } : {},
      );
      if (Array.isArray(result['tools'])) tools.push(...(result['tools'] as unknown[]));
      cursor = typeof result['nextCursor'] === 'string' && result['nextCursor'] !== '' ? result['nextCursor'] : undefined;
      if (!cursor) break;
    }
    return tools;
  }

  /** One tools/call. */
  callTool(endpoint: Endpoint, tool: string, args: Record<string, unknown>): Promise<Answer> {
    return this.request(endpoint, 'tools/call', { name: tool, arguments: args }, tool);
  }

  /** One request; a legacy session the upstream no longer knows is opened again, once. */
  async request(endpoint: Endpoint, method: string, params: Record<string, unknown>, name?: string): Promise<Answer> {
    const session = await this.session(endpoint);
    try {
      return await this.post(endpoint, session, method, params, name);
    } catch (err) {
      if (!(err instanceof UpstreamFailure) || err.reason !== 'session') throw err;
      this.sessions.delete(sessionKey(endpoint));
      return this.post(endpoint, await this.session(endpoint), method, params, name);
    }
  }

  private session(endpoint: Endpoint): Promise<Session> {
    const key = sessionKey(endpoint);
    let session = this.sessions.get(key);
    if (!session) {
      session = this.open(endpoint);
      this.sessions.set(key, session);
      // A failed opening is not kept: the next request tries again.
      session.catch(() => this.sessions.delete(key));
    }
    return session;
  }

  private async open(endpoint: Endpoint): Promise<Session> {
    if (endpoint.era !== 'legacy') {
      const modern = { era: 'modern', version: MODERN_VERSION, id: null } as const;
      try {
        const { result } = await this.post(endpoint, modern, 'server/discover', {});
        const versions = result['supportedVersions'];
        if (Array.isArray(versions) && versions.includes(MODERN_VERSION)) return modern;
      } catch (err) {
        // Unreachable, refused or too slow is the answer; any other answer means "not 2026-07-28".
        if (err instanceof UpstreamFailure && !['rpc', 'status', 'invalid', 'session'].includes(err.reason)) throw err;
        if (endpoint.era === 'modern') throw err;
      }
    }
    const opening = { era: 'legacy', version: LEGACY_VERSION, id: null } as const;
    const { result, sessionId } = await this.postWithSession(endpoint, opening, 'initialize', {
      protocolVersion: LEGACY_VERSION,
      capabilities: {},
      clientInfo: CLIENT_INFO,
    });
    const version = typeof result['protocolVersion'] === 'string' ? result['protocolVersion'] : LEGACY_VERSION;
    const session: Session = { era: 'legacy', version, id: sessionId };
    await this.notify(endpoint, session, 'notifications/initialized');
    return session;
  }

  private async post(
    endpoint: Endpoint,
    session: Session,
    method: string,
    params: Record<string, unknown>,
    name?: string,
  ): Promise<Answer> {
    return (await this.postWithSession(endpoint, session, method, params, name)).answer;
  }

  private async postWithSession(
    endpoint: Endpoint,
    session: Session,
    method: string,
    params: Record<string, unknown>,
    name?: string,
  ): Promise<{ answer: Answer; result: Record<string, unknown>; sessionId: string | null }> {
    const id = this.nextId++;
    const body =
      session.era === 'modern'
        ? {
            ...params,
            _meta: {
              ...(params['_meta'] as Record<string, unknown> | undefined),
              [META.protocolVersion]: MODERN_VERSION,
              [META.clientCapabilities]: {},
              [META.clientInfo]: CLIENT_INFO,
            },
          }
        : params;
    const res = await this.send(endpoint, session, JSON.stringify({ jsonrpc: '2.0', id, method, params: body }), method, name);
    const text = await res.text();
    if (res.status === 404 && session.id) throw new UpstreamFailure('session', 'the upstream no longer knows the session');
    if (res.status === 401 || res.status === 403)
      throw new UpstreamFailure('refused', `the upstream refused svc's credentials (HTTP ${res.status})`);
    const type = res.headers.get('content-type') ?? '';
    if (res.status !== 200) {
      // An error status with a JSON-RPC error in its body says what went wrong; any other says only its status.
      if (type.includes('json')) readAnswer(text, type, id);
      throw new UpstreamFailure('status', `the upstream answered HTTP ${res.status}`);
    }
    const answer = readAnswer(text, type, id);
    return { answer, result: answer.result, sessionId: res.headers.get('mcp-session-id') };
  }

  private async notify(endpoint: Endpoint, session: Session, method: string): Promise<void> {
    const res = await this.send(endpoint, session, JSON.stringify({ jsonrpc: '2.0', method }), method);
    await res.text();
  }

  private async send(endpoint: Endpoint, session: Session, body: string, method: string, name?: string): Promise<Response> {
    const token = await endpoint.token(method === 'tools/call' ? name : undefined);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': session.version,
    };
    if (session.era === 'modern') {
      headers['mcp-method'] = method;
      if (name) headers['mcp-name'] = name;
    }
    if (session.id) headers['mcp-session-id'] = session.id;
    if (endpoint.credential) headers[endpoint.credential.header.toLowerCase()] = endpoint.credential.value;
    const tokenHeader =
      endpoint.credential?.header.toLowerCase() === 'authorization' ? FORWARDED_TOKEN_HEADER.toLowerCase() : 'authorization';
    headers[tokenHeader] = `Bearer ${token}`;
    try {
      return await this.fetch(endpoint.url, { method: 'POST', headers, body, tenant: endpoint.tenant, timeoutMs: endpoint.timeoutMs });
    } catch (err) {
      throw failureOf(err, endpoint.timeoutMs);
    }
  }
}

const sessionKey = (e: Endpoint) => `${e.url}\n${e.credential?.header ?? ''}\n${e.credential?.value ?? ''}`;

/** A fetch's failure as the caller may be told it: never an address or a stack. */
function failureOf(err: unknown, timeoutMs: number): UpstreamFailure {
  if (err instanceof CimdFetchRefused) {
    if (err.reason === 'address') return new UpstreamFailure('address', 'the upstream does not resolve to an address svc may call');
    if (err.reason === 'busy') return new UpstreamFailure('busy', 'too many calls of this workspace to upstream servers are in flight');
    if (/longer than|too long/.test(err.message))
      return new UpstreamFailure('timeout', `the upstream did not answer within ${timeoutMs} ms`);
    if (/more than \d+ bytes|bytes, more than/.test(err.message))
      return new UpstreamFailure('too_large', `the upstream's answer is larger than ${UPSTREAM_LIMITS.answerBytes} bytes`);
  }
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError'))
    return new UpstreamFailure('timeout', `the upstream did not answer within ${timeoutMs} ms`);
  return new UpstreamFailure('unreachable', 'the upstream cannot be reached');
}
