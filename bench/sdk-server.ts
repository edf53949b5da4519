/**
 * The baseline a user of the official SDK would otherwise write: `@modelcontextprotocol/sdk`'s
 * McpServer with one tool, its Streamable HTTP transport in stateless mode (a server and transport
 * per request, as the SDK's stateless example does) behind Express with `express.json()`, and the
 * same API-key check as the gateway: the keyed hash of X-API-Key and one Redis call for its record.
 *   sdk-server.ts <port> <redis-url> <pepper>
 */
import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { connectRedis, createAccounts } from '@svc/accounts';

const [port, redisUrl, pepper] = [Number(process.argv[2]), process.argv[3] ?? '', process.argv[4] ?? ''];
const accounts = createAccounts(connectRedis(redisUrl), { pepper });

const app = express();
app.use(express.json());
app.post('/mcp', async (req, res) => {
  const presented = req.header('x-api-key') ?? '';
  const record = presented ? await accounts.keys.findByHash(accounts.keys.hash(presented)) : null;
  if (!record || record.revoked) {
    res.status(401).json({ jsonrpc: '2.0', id: null, error: { code: -31002, message: 'Invalid API key' } });
    return;
  }
  const server = new McpServer({ name: 'sdk-baseline', version: '1.0.0' });
  server.registerTool('svc_help', { description: 'help' }, async () => ({
    content: [{ type: 'text', text: 'Tools you can call here: svc_help. '.repeat(8) }],
  }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
});
const listener = app.listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => listener.close(() => process.exit(0)));
