/**
 * svc's MCP client of upstream servers (docs/upstream-servers.md "How svc talks to an upstream"):
 * Streamable HTTP POSTs through the tools lane's guarded request (@svc/bounds guarded-request.ts:
 * addresses checked, per-workspace shares of the `tools` lane, time and size bounded, kept-alive
 * connections), each answer read as it arrives (answer.ts), speaking either revision:
 * 2026-07-28 when the upstream answers `server/discover` with it (no session; `_meta` and the
 * `Mcp-Method`/`Mcp-Name` headers on every request), else 2025-11-25 and earlier (`initialize`,
 * `notifications/initialized`, and the `Mcp-Session-Id` the upstream gives, kept per upstream in
 * this process and opened again when the upstream forgets it). One session is kept an upstream, for
 * the URL and credential it was opened with, and UPSTREAM_LIMITS.sessions.kept in all, the least
 * recently used going first.
 */
import { createHash } from 'node:crypto';
import { BlockList } from 'node:net';
import {
  CimdFetchRefused,
  createGuardedRequest,
  type AnswerHead,
  type BodyReader,
  type GuardedRequester,
} from '@svc/bounds/guarded-request.ts';
import { createTenantCache, type TenantCache } from '@svc/bounds';
import { isSpecialUseAddress } from '@svc/bounds/special-use.ts';
import { answerReader, UpstreamFailure, type Answer, type Progress } from './answer.ts';
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

/** One upstream as a request to it needs it. */
export interface Endpoint {
  /** The project and the name the upstream is registered under: whose session a request takes. */
  project: string;
  upstream: string;
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
  token: (tool: string | undefined) => string | Promise<string>;
}

/** How the upstream was spoken to: its revision, version and (legacy, stateful) session. */
interface Session {
  era: UpstreamEra;
  version: string;
  id: string | null;
}

/** An upstream's session, and what it was opened for: a digest of the URL and credential. */
interface KeptSession {
  identity: string;
  session: Promise<Session>;
}

/** A CIDR block an operator allows upstreams in (UPSTREAM_ALLOWED_PRIVATE). */
export interface AllowedBlock {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

export interface ClientOptions {
  allowedPrivate: readonly AllowedBlock[];
  /**
   * Told each exchange's status (null when no answer came) and how long it took, answer read
   * included (the gateway's outbound histogram: docs/operations.md "Latency histograms").
   */
  observe?: ((status: number | null, seconds: number) => void) | undefined;
  /** The sessions kept at most, in all and of one workspace (UPSTREAM_LIMITS.sessions; tests give less). */
  sessions?: number;
  sessionsPerWorkspace?: number;
}

/** The header svc's forwarded token goes in: Authorization, unless the static credential takes it. */
const FORWARDED_TOKEN_HEADER = 'Svc-Forwarded-Token';

export class UpstreamClient {
  private readonly send: GuardedRequester;
  private readonly observe: ClientOptions['observe'];
  /**
   * Per upstream (sessionKey), least recently used first, each under the workspace whose upstream
   * it is (Endpoint.tenant) within that workspace's share (UPSTREAM_LIMITS.sessions; docs/security.md
   * "Shared pools, per-tenant shares").
   */
  private readonly sessions: TenantCache<KeptSession>;
  private nextId = 1;

  constructor(options: ClientOptions) {
    this.observe = options.observe;
    const { kept, perWorkspace } = UPSTREAM_LIMITS.sessions;
    this.sessions = createTenantCache({ entries: options.sessions ?? kept, perTenant: options.sessionsPerWorkspace ?? perWorkspace });
    const allowed = new BlockList();
    for (const b of options.allowedPrivate) allowed.addSubnet(b.address, b.prefix, b.family);
    this.send = createGuardedRequest({
      refuse: (address) => isSpecialUseAddress(address) && !allowed.check(address, address.includes(':') ? 'ipv6' : 'ipv4'),
      lane: 'tools',
      maxBytes: UPSTREAM_LIMITS.answerBytes,
    });
  }

  /** Which revision the upstream speaks, learnt afresh (registration and refresh). */
  async handshake(endpoint: Endpoint): Promise<{ era: UpstreamEra; version: string }> {
    this.drop(endpoint);
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

  /**
   * One tools/call. With `relay`, the request asks the upstream for its progress (a progressToken of
   * svc's own, MCP 2025-11-25 "Progress") and each notification of it is given to `relay` as it comes.
   */
  callTool(endpoint: Endpoint, tool: string, args: Record<string, unknown>, relay?: (p: Progress) => void): Promise<Answer> {
    return this.request(endpoint, 'tools/call', { name: tool, arguments: args }, tool, relay);
  }

  /** One request; a legacy session the upstream no longer knows is opened again, once. */
  async request(
    endpoint: Endpoint,
    method: string,
    params: Record<string, unknown>,
    name?: string,
    relay?: (p: Progress) => void,
  ): Promise<Answer> {
    const session = await this.session(endpoint);
    try {
      return (await this.post(endpoint, session, method, params, name, relay)).answer;
    } catch (err) {
      if (!(err instanceof UpstreamFailure) || err.reason !== 'session') throw err;
      this.drop(endpoint);
      return (await this.post(endpoint, await this.session(endpoint), method, params, name, relay)).answer;
    }
  }

  /** Drops the session kept for an upstream (removed, or refused at registration), or (no name) for every upstream of the project. */
  forget(project: string, upstream?: string): void {
    const prefix = sessionKey(project, upstream ?? '');
    for (const [tenant, key] of this.sessions.entries())
      if (upstream === undefined ? key.startsWith(prefix) : key === prefix) this.sessions.delete(tenant, key);
  }

  /** Drops the session kept for the endpoint's upstream: one lookup, whatever else is kept. */
  private drop(endpoint: Endpoint): void {
    this.sessions.delete(endpoint.tenant, sessionKey(endpoint.project, endpoint.upstream));
  }

  /** How many sessions are kept (their bound's tests). */
  get sessionsKept(): number {
    return this.sessions.held();
  }

  /** The upstream's session, opened for this URL and credential (one an upstream, the least recently used going first). */
  private session(endpoint: Endpoint): Promise<Session> {
    const key = sessionKey(endpoint.project, endpoint.upstream);
    const { tenant } = endpoint;
    const identity = identityOf(endpoint);
    const kept = this.sessions.get(tenant, key);
    if (kept?.identity === identity) {
      // Set again: the cache's order is its use.
      this.sessions.set(tenant, key, kept);
      return kept.session;
    }
    const entry: KeptSession = { identity, session: this.open(endpoint) };
    this.sessions.set(tenant, key, entry);
    // A failed opening is not kept: the next request tries again.
    entry.session.catch(() => {
      if (this.sessions.get(tenant, key) === entry) this.sessions.delete(tenant, key);
    });
    return entry.session;
  }

  private async open(endpoint: Endpoint): Promise<Session> {
    if (endpoint.era !== 'legacy') {
      const modern = { era: 'modern', version: MODERN_VERSION, id: null } as const;
      try {
        const { result } = (await this.post(endpoint, modern, 'server/discover', {})).answer;
        const versions = result['supportedVersions'];
        if (Array.isArray(versions) && versions.includes(MODERN_VERSION)) return modern;
      } catch (err) {
        // Unreachable, refused or too slow is the answer; any other answer means "not 2026-07-28".
        if (err instanceof UpstreamFailure && !['rpc', 'status', 'invalid', 'session'].includes(err.reason)) throw err;
        if (endpoint.era === 'modern') throw err;
      }
    }
    const opening = { era: 'legacy', version: LEGACY_VERSION, id: null } as const;
    const { answer, sessionId } = await this.post(endpoint, opening, 'initialize', {
      protocolVersion: LEGACY_VERSION,
      capabilities: {},
      clientInfo: CLIENT_INFO,
    });
    const given = answer.result['protocolVersion'];
    const version = typeof given === 'string' ? given : LEGACY_VERSION;
    // MCP 2025-11-25 "Lifecycle": a version is a date, YYYY-MM-DD; it is kept and sent back on every request.
    if (!PROTOCOL_VERSION.test(version))
      throw new UpstreamFailure('invalid', 'the upstream answered a protocol version that is not a date');
    // MCP 2025-11-25 "Session Management": visible ASCII; svc keeps and sends back no more than its bound.
    if (sessionId !== null && !SESSION_ID.test(sessionId))
      throw new UpstreamFailure(
        'invalid',
        `the upstream gave a session id that is not 1 to ${UPSTREAM_LIMITS.sessions.idLength} visible ASCII characters`,
      );
    const session: Session = { era: 'legacy', version, id: sessionId };
    await this.notify(endpoint, session, 'notifications/initialized');
    return session;
  }

  /** One request and its answer, with the session id the upstream gave in it (legacy `initialize`). */
  private async post(
    endpoint: Endpoint,
    session: Session,
    method: string,
    params: Record<string, unknown>,
    name?: string,
    relay?: (p: Progress) => void,
  ): Promise<{ answer: Answer; sessionId: string | null }> {
    const id = this.nextId++;
    // MCP 2025-11-25 "Progress": the token is svc's own (the request's id); the relay puts the caller's back.
    const progress = relay ? { token: id, relay } : undefined;
    const withToken = progress ? { ...params, _meta: { ...(params['_meta'] as object | undefined), progressToken: id } } : params;
    const body =
      session.era === 'modern'
        ? {
            ...withToken,
            _meta: {
              ...(withToken['_meta'] as Record<string, unknown> | undefined),
              [META.protocolVersion]: MODERN_VERSION,
              [META.clientCapabilities]: {},
              [META.clientInfo]: CLIENT_INFO,
            },
          }
        : withToken;
    let sessionId: string | null = null;
    const answer = await this.exchange(
      endpoint,
      session,
      JSON.stringify({ jsonrpc: '2.0', id, method, params: body }),
      method,
      name,
      (head) => {
        const given = head.headers['mcp-session-id'];
        sessionId = typeof given === 'string' ? given : null;
        return answerReader(head, { id, inSession: session.id !== null, progress });
      },
    );
    return { answer, sessionId };
  }

  private async notify(endpoint: Endpoint, session: Session, method: string): Promise<void> {
    // Its answer (202, no body) says nothing more: read to its end, so the connection is kept.
    await this.exchange(endpoint, session, JSON.stringify({ jsonrpc: '2.0', method }), method, undefined, () => IGNORED);
  }

  private async exchange<T>(
    endpoint: Endpoint,
    session: Session,
    body: string,
    method: string,
    name: string | undefined,
    read: (head: AnswerHead) => BodyReader<T>,
  ): Promise<T> {
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
    const started = performance.now();
    let status: number | null = null;
    const seen = (head: AnswerHead) => {
      status = head.status;
      return read(head);
    };
    try {
      return await this.send(endpoint.url, { method: 'POST', headers, body, tenant: endpoint.tenant, timeoutMs: endpoint.timeoutMs }, seen);
    } catch (err) {
      throw failureOf(err, endpoint.timeoutMs);
    } finally {
      this.observe?.(status, (performance.now() - started) / 1000);
    }
  }
}

/** The reader of an answer whose body does not matter. */
const IGNORED: BodyReader<undefined> = { data: () => undefined, end: () => undefined };

const sessionKey = (project: string, upstream: string) => `${project}\n${upstream}`;

/** What a session was opened for, as a digest: the URL and credential are not held twice. */
const identityOf = (e: Endpoint) =>
  createHash('sha256')
    .update(`${e.url}\n${e.credential?.header ?? ''}\n${e.credential?.value ?? ''}`)
    .digest('base64url');

const PROTOCOL_VERSION = /^\d{4}-\d{2}-\d{2}$/;
const SESSION_ID = new RegExp(`^[\\x21-\\x7E]{1,${UPSTREAM_LIMITS.sessions.idLength}}$`);

/** A request's failure as the caller may be told it: never an address or a stack. */
function failureOf(err: unknown, timeoutMs: number): UpstreamFailure {
  if (err instanceof UpstreamFailure) return err;
  if (err instanceof CimdFetchRefused) {
    switch (err.reason) {
      case 'address':
        return new UpstreamFailure('address', 'the upstream does not resolve to an address svc may call');
      case 'busy':
        return new UpstreamFailure('busy', 'too many calls of this workspace to upstream servers are in flight');
      case 'timeout':
        return new UpstreamFailure('timeout', `the upstream did not answer within ${timeoutMs} ms`);
      case 'too_large':
        return new UpstreamFailure('too_large', `the upstream's answer is larger than ${UPSTREAM_LIMITS.answerBytes} bytes`);
      case 'other':
        break;
    }
  }
  return new UpstreamFailure('unreachable', 'the upstream cannot be reached');
}
