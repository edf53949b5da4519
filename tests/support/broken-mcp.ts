/**
 * A deliberately broken MCP server for `svc doctor` tests: one HTTP server on a free port that is
 * both the protected resource (`/mcp`) and its authorization server (issuer: its origin), each
 * part of its discovery switched on, off or broken by one field of a Breakage. The healthy
 * default is what the MCP authorization rules ask; a test names what to break. It answers the
 * registration POST so a real SDK client can go as far as the authorization redirect.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Breakage {
  /** Where the RFC 9728 metadata is served. */
  prmAt: readonly ('path' | 'root')[];
  /** The 401 names the metadata in resource_metadata. */
  challengeNamesPrm: boolean;
  /** The metadata's resource: the endpoint, or another URL. */
  resource: 'right' | 'wrong';
  /** Which authorization server metadata documents exist; `oauth-500` answers 500 at the RFC 8414 URL. */
  asMetadata: readonly ('oauth' | 'oidc' | 'oauth-500')[];
  /** The metadata's issuer (RFC 8414 §3.3) with RFC 9207 iss advertised, another URL, or none (nor iss). */
  issuer: 'right' | 'wrong' | 'missing';
  cors: boolean;
  dcr: boolean;
  cimd: boolean;
  /** The path-inserted metadata URL: answers, loops between two redirects, redirects to another host, or sends a body of 2 MiB. */
  prmPath: 'normal' | 'redirect-loop' | 'other-host' | 'huge';
  /** The MCP endpoint never answers. */
  slow: boolean;
  /** The protocol revisions a Server Card at /.well-known/mcp.json lists (no card when empty). */
  cardVersions: readonly string[];
}

const HEALTHY: Breakage = {
  prmAt: ['path'],
  challengeNamesPrm: true,
  resource: 'right',
  asMetadata: ['oauth', 'oidc'],
  issuer: 'right',
  cors: true,
  dcr: true,
  cimd: true,
  prmPath: 'normal',
  slow: false,
  cardVersions: [],
};

export interface BrokenServer {
  origin: string;
  /** The MCP endpoint. */
  url: string;
  /** Requests answered so far, by method and path. */
  requests: string[];
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function asMetadata(origin: string, b: Breakage) {
  return {
    ...(b.issuer === 'right' ? { issuer: origin, authorization_response_iss_parameter_supported: true } : {}),
    ...(b.issuer === 'wrong' ? { issuer: `${origin}/elsewhere` } : {}),
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    ...(b.dcr ? { registration_endpoint: `${origin}/register` } : {}),
    ...(b.cimd ? { client_id_metadata_document_supported: true } : {}),
    response_types_supported: ['code'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
  };
}

/** The routes of a server broken as `b` says, at `origin`. */
function routes(origin: string, b: Breakage): Record<string, Handler> {
  const prm = { resource: b.resource === 'right' ? `${origin}/mcp` : `${origin}/other`, authorization_servers: [origin] };
  const r: Record<string, Handler> = {
    'POST /mcp': (req, res) => {
      if (b.slow) return; // never answered: the doctor's time bound ends it
      const challenge = `Bearer${b.challengeNamesPrm ? ` resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` : ''}`;
      json(
        res,
        401,
        { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Unauthorized' } },
        {
          'www-authenticate': challenge,
          ...(b.cors && req.headers.origin ? { 'access-control-expose-headers': 'WWW-Authenticate' } : {}),
        },
      );
    },
    'POST /register': (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => json(res, 201, { ...(JSON.parse(body) as object), client_id: 'doctor-test-client' }));
    },
  };
  if (b.prmAt.includes('root')) r['GET /.well-known/oauth-protected-resource'] = (_q, res) => json(res, 200, prm);
  if (b.prmAt.includes('path'))
    r['GET /.well-known/oauth-protected-resource/mcp'] = (_q, res) => {
      if (b.prmPath === 'redirect-loop') return res.writeHead(302, { location: '/loop' }).end();
      if (b.prmPath === 'other-host') return res.writeHead(302, { location: 'https://elsewhere.example/prm' }).end();
      if (b.prmPath === 'huge') return json(res, 200, { ...prm, padding: 'x'.repeat(2 * 1024 * 1024) });
      json(res, 200, prm);
    };
  r['GET /loop'] = (_q, res) => res.writeHead(302, { location: '/.well-known/oauth-protected-resource/mcp' }).end();
  for (const kind of b.asMetadata) {
    const path = kind === 'oidc' ? '/.well-known/openid-configuration' : '/.well-known/oauth-authorization-server';
    r[`GET ${path}`] = (_q, res) =>
      kind === 'oauth-500' ? json(res, 500, { error: 'server_error' }) : json(res, 200, asMetadata(origin, b));
  }
  if (b.cardVersions.length)
    r['GET /.well-known/mcp.json'] = (_q, res) =>
      json(res, 200, {
        $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
        name: 'example.broken/mcp',
        version: '1.0.0',
        description: 'A broken server',
        remotes: [{ type: 'streamable-http', url: `${origin}/mcp`, supportedProtocolVersions: b.cardVersions }],
      });
  return r;
}

/** Starts a server broken as `overrides` says (the rest healthy). */
export async function startBrokenMcp(overrides: Partial<Breakage> = {}): Promise<BrokenServer> {
  const b = { ...HEALTHY, ...overrides };
  const requests: string[] = [];
  let table: Record<string, Handler> = {};
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(`${req.method} ${path}`);
    if (b.cors && req.headers.origin) res.setHeader('access-control-allow-origin', '*');
    if (req.method === 'OPTIONS') {
      if (!b.cors) return json(res, 404, { error: 'not_found' });
      return res
        .writeHead(204, {
          'access-control-allow-methods': 'GET, POST, OPTIONS',
          'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version',
        })
        .end();
    }
    const handler = table[`${req.method} ${path}`];
    if (handler) return handler(req, res);
    json(res, 404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  table = routes(origin, b);
  return {
    origin,
    url: `${origin}/mcp`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
