/**
 * The upstream MCP server of `pnpm bench:upstream` (bench/upstream.ts): two read-only tools with one
 * fixed small result, `echo` answering at once and `slow` after a fixed delay (setTimeout), served
 * statelessly over Streamable HTTP with JSON answers (MCP 2025-11-25 "Transports"), either
 *   - `sdk`: the official SDK v1's McpServer and StreamableHTTPServerTransport (stateless,
 *     enableJsonResponse: a server and transport per request, as the SDK's stateless example does)
 *     on node:http, or
 *   - `plain`: a node:http JSON-RPC server answering initialize, tools/list and tools/call (and 202
 *     to notifications, -32601 to anything else: svc's client then falls back from server/discover
 *     to initialize, docs/upstream-servers.md).
 * It checks no token: the bench measures what svc adds, not what a verifying upstream costs.
 *   upstream-server.ts <sdk|plain> <port> <delay ms>
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

const kind = process.argv[2] === 'plain' ? 'plain' : 'sdk';
const port = Number(process.argv[3] ?? 0);
const delayMs = Number(process.argv[4] ?? 20);

const RESULT = { content: [{ type: 'text' as const, text: 'ok: a fixed small result' }] };
const TOOLS = [
  { name: 'echo', description: 'Answers at once', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } },
  {
    name: 'slow',
    description: `Answers after ${delayMs} ms`,
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
  },
];
const run = async (name: string) => {
  if (name === 'slow') await sleep(delayMs);
  return RESULT;
};

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        ok(chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined);
      } catch (err) {
        fail(err as Error);
      }
    });
    req.on('error', fail);
  });
}

const send = (res: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
};

/** The SDK's stateless example: a fresh McpServer and transport for each POST. */
async function sdk(req: IncomingMessage, res: ServerResponse, body: unknown) {
  const server = new McpServer({ name: 'bench-upstream', version: '1.0.0' });
  for (const tool of TOOLS)
    server.registerTool(tool.name, { description: tool.description, annotations: tool.annotations }, () => run(tool.name));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

interface Message {
  id?: string | number | null;
  method?: string;
  params?: { name?: string; protocolVersion?: string };
}

async function plain(res: ServerResponse, body: unknown) {
  const { id, method, params } = (body ?? {}) as Message;
  if (id === undefined) return void res.writeHead(202).end();
  const result = (value: unknown) => send(res, 200, { jsonrpc: '2.0', id, result: value });
  switch (String(method)) {
    case 'initialize':
      return result({
        protocolVersion: params?.protocolVersion === '2025-06-18' ? '2025-06-18' : '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'bench-upstream', version: '1.0.0' },
      });
    case 'tools/list':
      return result({ tools: TOOLS });
    case 'tools/call':
      if (!TOOLS.some((t) => t.name === params?.name))
        return send(res, 200, { jsonrpc: '2.0', id, error: { code: -32602, message: `Unknown tool: ${String(params?.name)}` } });
      return result(await run(String(params?.name)));
    default:
      return send(res, 200, { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
  }
}

const server = createServer((req, res) => {
  if (req.method !== 'POST')
    return void send(res, 405, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Method not allowed.' } });
  readBody(req)
    .then(
      (body) => (kind === 'sdk' ? sdk(req, res, body) : plain(res, body)),
      () => send(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }),
    )
    .catch(() => {
      if (!res.headersSent) send(res, 500, { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } });
    });
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
