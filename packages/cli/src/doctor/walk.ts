/**
 * The probes of `svc doctor`, in the order their answers are needed (docs/cli.md "svc doctor"):
 * the MCP endpoint and every well-known document a client family may try, then the authorization
 * servers those documents name, then the endpoints a browser client would call there. The result
 * is every answer as seen; findings.ts and verdicts.ts read it and send nothing.
 */
import { documentOf, probe, type Bounds, type ProbeResult } from './probe.ts';

/** An authorization server's metadata URL, of the kind a client tries. */
export interface AsCandidate {
  kind: 'oauth' | 'oidc';
  url: string;
  result: ProbeResult;
}

export interface AuthServerProbes {
  /** RFC 8414 §3.1 and OpenID Connect Discovery §4 URLs, in the TypeScript SDK's order. */
  candidates: AsCandidate[];
  /** CORS preflights of the endpoints a browser client POSTs to, from the first metadata found. */
  registrationPreflight?: ProbeResult;
  tokenPreflight?: ProbeResult;
}

export interface Observations {
  /** The MCP endpoint as asked (no fragment). */
  target: string;
  /** The origin sent as a browser client's (`--origin`). */
  browserOrigin: string;
  /** POST initialize without a credential. */
  mcp: ProbeResult;
  /** The same POST from the browser origin. */
  mcpBrowser: ProbeResult;
  mcpPreflight: ProbeResult;
  prm: { challenge?: ProbeResult; path?: ProbeResult; root: ProbeResult };
  /** By issuer: each authorization server any metadata named (or the MCP origin, when none did). */
  authServers: Record<string, AuthServerProbes>;
  cards: { wellKnown: ProbeResult; reserved: ProbeResult };
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'svc-doctor', version: '1' } },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const CARD_TYPE = 'application/mcp-server-card+json';

/** RFC 6750 §3 / RFC 9110 §11.6.1: the auth-params of a challenge, names in lower case. */
export function challengeParams(header: string | undefined): Record<string, string> {
  const params: Record<string, string> = {};
  if (!header) return params;
  for (const m of header.matchAll(/([A-Za-z_][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g)) {
    params[m[1]!.toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!;
  }
  return params;
}

/** The path of `url` without its trailing slash ('' for the root). */
function pathOf(url: URL): string {
  return url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
}

/** The URLs a client tries for the metadata of the authorization server `issuer`. */
function asCandidates(issuer: string): { kind: 'oauth' | 'oidc'; url: string }[] {
  const u = new URL(issuer);
  const path = pathOf(u);
  const list: { kind: 'oauth' | 'oidc'; url: string }[] = [
    { kind: 'oauth', url: `${u.origin}/.well-known/oauth-authorization-server${path}` },
    { kind: 'oidc', url: `${u.origin}/.well-known/openid-configuration${path}` },
  ];
  if (path) list.push({ kind: 'oidc', url: `${u.origin}${path}/.well-known/openid-configuration` });
  return list;
}

function preflight(url: string, origin: string, headers: string, bounds: Bounds): Promise<ProbeResult> {
  return probe(
    { method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': headers } },
    bounds,
  );
}

async function probeAuthServer(issuer: string, origin: string, bounds: Bounds): Promise<AuthServerProbes> {
  const get = (url: string) => probe({ url, headers: { accept: 'application/json', origin } }, bounds);
  const candidates = await Promise.all(asCandidates(issuer).map(async (c) => ({ ...c, result: await get(c.url) })));
  const metadata = candidates.map((c) => documentOf(c.result)).find((d) => d !== null);
  const endpoint = (name: string) => (typeof metadata?.[name] === 'string' ? (metadata[name] as string) : undefined);
  const [registration, token] = [endpoint('registration_endpoint'), endpoint('token_endpoint')];
  const [registrationPreflight, tokenPreflight] = await Promise.all([
    registration ? preflight(registration, origin, 'content-type', bounds) : undefined,
    token ? preflight(token, origin, 'content-type', bounds) : undefined,
  ]);
  return {
    candidates,
    ...(registrationPreflight ? { registrationPreflight } : {}),
    ...(tokenPreflight ? { tokenPreflight } : {}),
  };
}

/** Every probe for the MCP endpoint `target`, as a browser at `browserOrigin` and as a native client. */
export async function walk(target: URL, browserOrigin: string, bounds: Bounds): Promise<Observations> {
  const url = target.href;
  const path = pathOf(target);
  const get = (u: string, accept = 'application/json') => probe({ url: u, headers: { accept, origin: browserOrigin } }, bounds);
  const [mcp, mcpBrowser, mcpPreflight, prmPath, prmRoot, wellKnown, reserved] = await Promise.all([
    probe({ method: 'POST', url, headers: MCP_HEADERS, body: INITIALIZE }, bounds),
    probe({ method: 'POST', url, headers: { ...MCP_HEADERS, origin: browserOrigin }, body: INITIALIZE }, bounds),
    preflight(url, browserOrigin, 'authorization, content-type, mcp-protocol-version', bounds),
    path ? get(`${target.origin}/.well-known/oauth-protected-resource${path}`) : undefined,
    get(`${target.origin}/.well-known/oauth-protected-resource`),
    get(`${target.origin}/.well-known/mcp.json`, CARD_TYPE),
    get(`${url.replace(/\/$/, '')}/server-card`, CARD_TYPE),
  ]);
  const named = challengeParams(mcp.headers['www-authenticate'])['resource_metadata'];
  const known = [prmPath, prmRoot].find((r) => r?.url === named);
  const challenge = named === undefined ? undefined : (known ?? (await get(named)));
  const prm = { ...(challenge ? { challenge } : {}), ...(prmPath ? { path: prmPath } : {}), root: prmRoot };
  const issuers = new Set<string>();
  for (const r of [challenge, prmPath, prmRoot]) {
    const servers = documentOf(r)?.['authorization_servers'];
    if (Array.isArray(servers) && typeof servers[0] === 'string') issuers.add(servers[0]);
  }
  // MCP 2025-03-26: a client that found no metadata takes the MCP server's origin as its authorization server.
  if (issuers.size === 0) issuers.add(target.origin);
  const authServers: Record<string, AuthServerProbes> = {};
  await Promise.all(
    [...issuers].map(async (issuer) => {
      if (URL.canParse(issuer)) authServers[issuer] = await probeAuthServer(issuer, browserOrigin, bounds);
    }),
  );
  return { target: url, browserOrigin, mcp, mcpBrowser, mcpPreflight, prm, authServers, cards: { wellKnown, reserved } };
}
