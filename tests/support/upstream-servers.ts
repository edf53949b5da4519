/**
 * Upstream MCP servers for the tests of svc in front of any MCP server (docs/upstream-servers.md):
 * real servers on 127.0.0.1 free ports, each returning `{ url, calls, setTools, close }`, `calls`
 * holding every HTTP request received with its Authorization header (and, on a verifying server,
 * the AuthInfo @svc/upstream-auth returned or the refusal it answered).
 *   - startSdkV1Upstream: the official SDK v1 (`@modelcontextprotocol/sdk`), McpServer and its
 *     Streamable HTTP transport over node:http, stateless or with sessions, JSON or SSE answers.
 *   - startSdkV2Upstream: the official SDK v2 (`@modelcontextprotocol/server`), createMcpHandler,
 *     serving the 2026-07-28 revision and, statelessly, the earlier ones.
 *   - startHangingUpstream, startFailingUpstream, startGarbageUpstream, startFloodingUpstream,
 *     startChangingUpstream: hand-written node:http servers that answer initialize and tools/list
 *     plainly and misbehave on tools/call (or on everything).
 * The tools by default are noteTools(): read_notes (read-only), write_note (no hints),
 * delete_note (destructive), count_with_progress (progress notifications when asked for); and
 * gatedProgressTool(), whose progress waits at a gate the test opens.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { requireBearerAuth as requireBearerAuthV1 } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  isInitializeRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  McpServer as McpServerV2,
  OAuthError,
  OAuthErrorCode,
  createMcpHandler,
  fromJsonSchema,
  requireBearerAuth as requireBearerAuthV2,
} from '@modelcontextprotocol/server';
import type { JsonSchemaType } from '@modelcontextprotocol/server';
import { createSvcTokenVerifier } from '@svc/upstream-auth';
import type { SvcTokenVerifierOptions } from '@svc/upstream-auth';

/** A tool an upstream serves; `run` defaults to echoing its name and arguments. */
export interface UpstreamTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties?: Record<string, object>; required?: string[] };
  annotations?: { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  run?: (
    args: Record<string, unknown>,
    progress: (done: number, total: number, message?: string) => Promise<void>,
  ) => CallToolResult | Promise<CallToolResult>;
}

/** One HTTP request an upstream received. */
export interface UpstreamCall {
  httpMethod: string;
  headers: IncomingHttpHeaders;
  authorization: string | undefined;
  /** The parsed JSON body, or its text when it is not JSON, or undefined when empty. */
  body: unknown;
  rpcMethod: string | undefined;
  tool: string | undefined;
  /** On a verifying upstream: what the verifier returned for this request's token. */
  authInfo?: AuthInfo;
  /** On a verifying upstream: the error_description of its 401 or 500. */
  refusal?: string;
}

/** A running test upstream. */
export interface TestUpstream {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  calls: UpstreamCall[];
  /** Replaces the tools; announces notifications/tools/list_changed where the server has a stream to send it on. */
  setTools(tools: UpstreamTool[]): void;
  close(): Promise<void>;
}

/** Verify the bearer token with @svc/upstream-auth, as docs/upstream-servers.md says to. */
export interface UpstreamVerification {
  issuer: string;
  /** Default: the upstream's own url. */
  audience?: string;
  jwksUrl?: string;
  replay?: SvcTokenVerifierOptions['replay'];
}

const MAX_BODY_BYTES = 1024 * 1024;

/** The four note tools, over a note store of their own. */
export function noteTools(): UpstreamTool[] {
  const notes = new Map<string, string>();
  const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });
  return [
    {
      name: 'read_notes',
      description: 'Lists the notes',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true },
      run: () => ({ ...text(JSON.stringify([...notes])), structuredContent: { notes: Object.fromEntries(notes) } }),
    },
    {
      name: 'write_note',
      description: 'Writes a note',
      inputSchema: { type: 'object', properties: { title: { type: 'string' }, text: { type: 'string' } }, required: ['title', 'text'] },
      run: (args) => (notes.set(String(args.title), String(args.text)), text(`saved ${String(args.title)}`)),
    },
    {
      name: 'delete_note',
      description: 'Deletes a note',
      inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
      annotations: { destructiveHint: true },
      run: (args) => text(notes.delete(String(args.title)) ? `deleted ${String(args.title)}` : `no note ${String(args.title)}`),
    },
    {
      name: 'count_with_progress',
      description: 'Counts to steps, reporting progress when the request carries a progressToken',
      inputSchema: { type: 'object', properties: { steps: { type: 'integer', minimum: 1, maximum: 50 } }, required: ['steps'] },
      run: async (args, progress) => {
        const steps = Number(args.steps);
        for (let done = 1; done <= steps; done += 1) await progress(done, steps);
        return text(`counted ${steps}`);
      },
    },
  ];
}

/**
 * A read-only tool that reports its first step (progress 1 of 3) when called, then waits for the
 * promise `gate()` gives before reporting the other two and answering `exported`: what its caller
 * receives before the gate opens was relayed while the call was still running.
 */
export function gatedProgressTool(gate: () => Promise<void>, name = 'slow_export'): UpstreamTool {
  return {
    name,
    description: 'Exports in three steps, reporting progress when the request carries a progressToken',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
    run: async (_args, progress) => {
      await progress(1, 3, 'started');
      await gate();
      await progress(2, 3, 'halfway');
      await progress(3, 3, 'written');
      return { content: [{ type: 'text', text: 'exported' }] };
    },
  };
}

/** An SDK v1 upstream: stateless (a server and transport per request) or with sessions; JSON or SSE answers. */
export async function startSdkV1Upstream(
  options: { sessions?: boolean; json?: boolean; tools?: UpstreamTool[]; verify?: UpstreamVerification } = {},
): Promise<TestUpstream & { sessionCount(): number }> {
  let tools = options.tools ?? noteTools();
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; mcp: McpServerV1 }>();
  const transportOptions = { enableJsonResponse: options.json ?? false };
  const upstream = await serve(async (req, res, call) => {
    if (options.verify && !(await gateV1(upstream.url, options.verify, req, res, call))) return;
    if (!options.sessions) {
      // The SDK's stateless example: POST only, a fresh server and transport for each.
      if (req.method !== 'POST') return void json(res, 405, rpcError(null, -32000, 'Method not allowed.'));
      const mcp = sdkV1Server(() => tools);
      const transport = new StreamableHTTPServerTransport({ ...transportOptions, sessionIdGenerator: undefined });
      res.on('close', () => void transport.close().then(() => mcp.close()));
      await mcp.connect(transport);
      return transport.handleRequest(req, res, call.body ?? '');
    }
    const sessionId = req.headers['mcp-session-id'];
    const session = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (session) return session.transport.handleRequest(req, res, call.body ?? '');
    if (sessionId !== undefined) return void json(res, 404, rpcError(null, -32001, 'Session not found'));
    if (req.method !== 'POST' || !isInitializeRequest(call.body)) {
      return void json(res, 400, rpcError(null, -32000, 'Bad Request: No valid session ID provided'));
    }
    const mcp = sdkV1Server(() => tools);
    const transport = new StreamableHTTPServerTransport({
      ...transportOptions,
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { transport, mcp }),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    await mcp.connect(transport);
    return transport.handleRequest(req, res, call.body ?? '');
  });
  return {
    ...upstream,
    setTools(next) {
      tools = next;
      for (const { mcp } of sessions.values()) mcp.sendToolListChanged();
    },
    sessionCount: () => sessions.size,
    async close() {
      await Promise.all([...sessions.values()].map(({ transport }) => transport.close()));
      await upstream.close();
    },
  };
}

/** McpServer with the tools served from a list that can change (hence the low-level handlers over JSON Schemas). */
function sdkV1Server(tools: () => UpstreamTool[]): McpServerV1 {
  const mcp = new McpServerV1({ name: 'sdk-v1-upstream', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools().map(({ run: _run, ...tool }) => tool) }));
  mcp.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = tools().find((t) => t.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const progressToken = request.params._meta?.progressToken;
    return runTool(tool, request.params.arguments ?? {}, async (progress, total, message) => {
      if (progressToken !== undefined) {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, total, message } });
      }
    });
  });
  return mcp;
}

/**
 * SDK v1's requireBearerAuth (an Express middleware) on node:http, with the verifier wired as
 * docs/upstream-servers.md shows; sets `req.auth` for the transport. False when it answered.
 */
async function gateV1(url: string, verify: UpstreamVerification, req: IncomingMessage, res: ServerResponse, call: UpstreamCall) {
  const verifier = verifierFor(url, verify, (refusal) => new InvalidTokenError(refusal.message));
  let passed = false;
  const expressLike = {
    set: (name: string, value: string) => res.setHeader(name, value),
    status: (status: number) => ({
      json(body: { error_description?: string }) {
        call.refusal = body.error_description;
        json(res, status, body);
      },
    }),
  };
  await requireBearerAuthV1({ verifier })(req as never, expressLike as never, () => (passed = true));
  if (passed) call.authInfo = (req as IncomingMessage & { auth?: AuthInfo }).auth;
  return passed;
}

const verifiers = new Map<string, ReturnType<typeof createSvcTokenVerifier>>();
function verifierFor(url: string, verify: UpstreamVerification, invalidTokenError: (refusal: Error) => Error) {
  let verifier = verifiers.get(url);
  if (!verifier) {
    verifier = createSvcTokenVerifier({ ...verify, audience: verify.audience ?? url, invalidTokenError });
    verifiers.set(url, verifier);
  }
  return verifier;
}

/** An SDK v2 upstream: createMcpHandler, 2026-07-28 per request and the earlier revisions statelessly. */
export async function startSdkV2Upstream(
  options: {
    tools?: UpstreamTool[];
    verify?: UpstreamVerification;
    responseMode?: 'auto' | 'sse' | 'json';
    legacy?: 'stateless' | 'reject';
  } = {},
): Promise<TestUpstream> {
  let tools = options.tools ?? noteTools();
  const handler = createMcpHandler(() => sdkV2Server(tools), { responseMode: options.responseMode, legacy: options.legacy });
  const upstream = await serve(async (req, res, call, rawBody) => {
    const request = new Request(new URL(req.url ?? '/', upstream.url), {
      method: req.method,
      headers: Object.entries(req.headers).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]])) as [
        string,
        string,
      ][],
      body: req.method === 'POST' || req.method === 'DELETE' ? new Uint8Array(rawBody) : undefined,
    });
    let authInfo: AuthInfo | undefined;
    if (options.verify) {
      const verifier = verifierFor(upstream.url, options.verify, (refusal) => new OAuthError(OAuthErrorCode.InvalidToken, refusal.message));
      const gate = await requireBearerAuthV2({ verifier })(request);
      if (gate instanceof Response) {
        call.refusal = ((await gate.clone().json()) as { error_description?: string }).error_description;
        return writeWebResponse(res, gate);
      }
      authInfo = call.authInfo = gate;
    }
    return writeWebResponse(res, await handler.fetch(request, { authInfo }));
  });
  return {
    ...upstream,
    setTools(next) {
      tools = next;
      handler.notify.toolsChanged();
    },
    async close() {
      await handler.close();
      await upstream.close();
    },
  };
}

function sdkV2Server(tools: UpstreamTool[]): McpServerV2 {
  const mcp = new McpServerV2({ name: 'sdk-v2-upstream', version: '2.0.0' }, { capabilities: { tools: { listChanged: true } } });
  for (const tool of tools) {
    const config = {
      description: tool.description,
      inputSchema: fromJsonSchema<Record<string, unknown>>(tool.inputSchema as JsonSchemaType),
    };
    mcp.registerTool(tool.name, tool.annotations ? { ...config, annotations: tool.annotations } : config, (args, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      return runTool(tool, args, async (progress, total, message) => {
        if (progressToken !== undefined) {
          await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, total, message } });
        }
      });
    });
  }
  return mcp;
}

/** Answers initialize and tools/list plainly, then never answers tools/call (or anything, with misbehaveOn 'everything'). */
export function startHangingUpstream(options: HostileOptions = {}): Promise<TestUpstream> {
  return startHostile(options, () => {});
}

/** Answers 500 with a text body. */
export function startFailingUpstream(options: HostileOptions = {}): Promise<TestUpstream> {
  return startHostile(options, (res) => void res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream exploded'));
}

/** Answers 200 application/json with a body that is not JSON. */
export function startGarbageUpstream(options: HostileOptions = {}): Promise<TestUpstream> {
  return startHostile(options, (res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('<html>not {json'));
}

/**
 * Answers with an SSE stream of `events` notifications (default 10,000), never a result, and keeps
 * it open; each carries `padding` characters of message (default none). `cutShort()` counts the
 * streams the client closed before every event was sent.
 */
export async function startFloodingUpstream(
  options: HostileOptions & { events?: number; padding?: number } = {},
): Promise<TestUpstream & { cutShort(): number }> {
  const events = options.events ?? 10_000;
  const message = 'x'.repeat(options.padding ?? 0);
  let cutShort = 0;
  const upstream = await startHostile(options, async (res, request) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const progressToken = (request.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta?.progressToken ?? 'flood';
    for (let sent = 0; sent < events && !res.destroyed;) {
      let chunk = '';
      for (const end = Math.min(events, sent + 100); sent < end; sent += 1) {
        const params = { progressToken, progress: sent + 1, ...(message ? { message } : {}) };
        const notification = { jsonrpc: '2.0', method: 'notifications/progress', params };
        chunk += `event: message\ndata: ${JSON.stringify(notification)}\n\n`;
      }
      if (!res.write(chunk)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
      await yieldToLoop();
      if (res.destroyed && sent < events) cutShort += 1;
    }
  });
  return { ...upstream, cutShort: () => cutShort };
}

/**
 * A plain upstream whose tools change (setTools): it gives sessions, keeps every GET stream open
 * and sends notifications/tools/list_changed on each when the tools change.
 */
export async function startChangingUpstream(options: { tools?: UpstreamTool[] } = {}): Promise<TestUpstream & { openStreams(): number }> {
  let tools = options.tools ?? noteTools();
  const streams = new Set<ServerResponse>();
  const upstream = await serve(async (req, res, call) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }).flushHeaders();
      streams.add(res);
      res.on('close', () => streams.delete(res));
      return;
    }
    if (req.method === 'DELETE') return void res.writeHead(200).end();
    await answerPlainly(
      res,
      call,
      () => tools,
      async (resOfCall, message) => {
        const params = (message.params ?? {}) as { name?: string; arguments?: Record<string, unknown> };
        const tool = tools.find((t) => t.name === params.name);
        if (!tool) return void json(resOfCall, 200, rpcError(message.id, -32602, `Unknown tool: ${String(params.name)}`));
        json(resOfCall, 200, { jsonrpc: '2.0', id: message.id, result: await runTool(tool, params.arguments ?? {}, async () => {}) });
      },
    );
  });
  return {
    ...upstream,
    setTools(next) {
      tools = next;
      const event = `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n\n`;
      for (const stream of streams) stream.write(event);
    },
    openStreams: () => streams.size,
    async close() {
      for (const stream of streams) stream.destroy();
      await upstream.close();
    },
  };
}

/** Whether a hostile upstream misbehaves only on tools/call (the default) or on every request. */
export interface HostileOptions {
  misbehaveOn?: 'tools/call' | 'everything';
  tools?: UpstreamTool[];
}

interface RpcMessage {
  id?: string | number | null;
  method?: string;
  params?: unknown;
}

async function startHostile(
  options: HostileOptions,
  misbehave: (res: ServerResponse, message: RpcMessage) => void | Promise<void>,
): Promise<TestUpstream> {
  let tools = options.tools ?? noteTools();
  const upstream = await serve(async (req, res, call) => {
    if (options.misbehaveOn === 'everything') return misbehave(res, (call.body ?? {}) as RpcMessage);
    if (req.method !== 'POST') return void json(res, 405, rpcError(null, -32000, 'Method not allowed.'));
    await answerPlainly(res, call, () => tools, misbehave);
  });
  return {
    ...upstream,
    setTools(next) {
      tools = next;
    },
  };
}

/**
 * A hand-written 2025-11-25 server, JSON answers only: initialize, ping, tools/list; notifications
 * get 202; tools/call goes to `onToolCall`; anything else -32601 (so a dual-era client's
 * server/discover falls back to initialize).
 */
async function answerPlainly(
  res: ServerResponse,
  call: UpstreamCall,
  tools: () => UpstreamTool[],
  onToolCall: (res: ServerResponse, message: RpcMessage) => void | Promise<void>,
): Promise<void> {
  const message = call.body;
  if (typeof message !== 'object' || message === null || Array.isArray(message))
    return json(res, 400, rpcError(null, -32700, 'Parse error'));
  const { id, method, params } = message as RpcMessage;
  if (id === undefined) return void res.writeHead(202).end();
  const result = (value: unknown) => json(res, 200, { jsonrpc: '2.0', id, result: value });
  switch (String(method)) {
    case 'initialize': {
      const asked = (params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
      const protocolVersion = typeof asked === 'string' && ['2025-06-18', '2025-11-25'].includes(asked) ? asked : '2025-11-25';
      res.setHeader('mcp-session-id', randomUUID());
      return result({
        protocolVersion,
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: 'plain-upstream', version: '1.0.0' },
      });
    }
    case 'ping':
      return result({});
    case 'tools/list':
      return result({ tools: tools().map(({ run: _run, ...tool }) => tool) });
    case 'tools/call':
      return onToolCall(res, message as RpcMessage);
    default:
      return json(res, 200, rpcError(id, -32601, `Method not found: ${String(method)}`));
  }
}

async function runTool(
  tool: UpstreamTool,
  args: Record<string, unknown>,
  progress: (done: number, total: number, message?: string) => Promise<void>,
) {
  if (tool.run) return tool.run(args, progress);
  return { content: [{ type: 'text' as const, text: `${tool.name} ${JSON.stringify(args)}` }] };
}

/** Listens on a free port of 127.0.0.1, records each request in `calls`, and hands it on; 404 off /mcp. */
async function serve(
  handle: (req: IncomingMessage, res: ServerResponse, call: UpstreamCall, rawBody: Buffer) => Promise<void>,
): Promise<{ url: string; calls: UpstreamCall[]; close(): Promise<void> }> {
  const calls: UpstreamCall[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const rawBody = await readBody(req);
      if (rawBody === null) return void json(res, 413, rpcError(null, -32600, 'Request body too large'));
      const call = recordCall(req, rawBody);
      calls.push(call);
      if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') return void res.writeHead(404).end();
      await handle(req, res, call, rawBody);
    })().catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, rpcError(null, -32603, String(error)));
      else res.destroy();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return {
    url,
    calls,
    async close() {
      verifiers.delete(url);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function recordCall(req: IncomingMessage, rawBody: Buffer): UpstreamCall {
  const text = rawBody.toString('utf8');
  let body: unknown = text === '' ? undefined : text;
  try {
    if (text !== '') body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text.
  }
  const message = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as RpcMessage) : undefined;
  const tool = message?.method === 'tools/call' ? (message.params as { name?: unknown } | undefined)?.name : undefined;
  return {
    httpMethod: req.method ?? '',
    headers: req.headers,
    authorization: req.headers.authorization,
    body,
    rpcMethod: typeof message?.method === 'string' ? message.method : undefined,
    tool: typeof tool === 'string' ? tool : undefined,
  };
}

/** Writes a fetch Response to node:http, streaming its body (an SSE answer as it comes). */
async function writeWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read();
    if (done || res.destroyed) break;
    res.write(value);
  }
  res.end();
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function rpcError(id: RpcMessage['id'] | null, code: number, message: string) {
  return { jsonrpc: '2.0', id: id ?? null, error: { code, message } };
}
