/**
 * Which servers a command talks to. The gateway comes from --server, SVC_BASE_URL or the local
 * default; the auth host from --auth-server, SVC_AUTH_URL, the gateway's
 * protected resource metadata (RFC 9728 names its authorization server) when only the gateway was
 * given, or the local default.
 */
import { CliError, EXIT } from './errors.ts';
import { requestJson } from './http.ts';

/** Where a local `pnpm dev` serves the gateway and the auth host (docs/development.md). */
const DEFAULT_BASE_URL = 'http://localhost:3000';
const DEFAULT_AUTH_URL = 'http://localhost:4000';

export interface Hosts {
  baseUrl: string;
  authUrl: string;
}

function origin(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`${what} is not a URL: ${value}`, EXIT.usage, 'Give an origin such as https://api.example.com.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new CliError(`${what} must be an http or https URL: ${value}`, EXIT.usage);
  return url.origin;
}

export function baseUrlOf(flags: { server?: string | undefined }, env: NodeJS.ProcessEnv): string {
  if (flags.server) return origin(flags.server, '--server');
  if (env['SVC_BASE_URL']) return origin(env['SVC_BASE_URL'], 'SVC_BASE_URL');
  return DEFAULT_BASE_URL;
}

export async function hostsOf(
  flags: { server?: string | undefined; authServer?: string | undefined },
  env: NodeJS.ProcessEnv,
): Promise<Hosts> {
  const baseUrl = baseUrlOf(flags, env);
  if (flags.authServer) return { baseUrl, authUrl: origin(flags.authServer, '--auth-server') };
  if (env['SVC_AUTH_URL']) return { baseUrl, authUrl: origin(env['SVC_AUTH_URL'], 'SVC_AUTH_URL') };
  if (baseUrl === DEFAULT_BASE_URL) return { baseUrl, authUrl: DEFAULT_AUTH_URL };
  const prm = await requestJson(`${baseUrl}/.well-known/oauth-protected-resource/mcp/svc`);
  const servers = prm.body['authorization_servers'];
  if (prm.status !== 200 || !Array.isArray(servers) || typeof servers[0] !== 'string') {
    throw new CliError(`${baseUrl} did not name its authorization server.`, EXIT.usage, 'Set it with --auth-server or SVC_AUTH_URL.');
  }
  return { baseUrl, authUrl: origin(servers[0], 'the authorization server') };
}

/** The options every command takes, with the servers as they are configured now (never a placeholder). */
export function serverHelp(env: NodeJS.ProcessEnv): string {
  const base = env['SVC_BASE_URL'] ? `now ${env['SVC_BASE_URL']} from SVC_BASE_URL` : `now ${DEFAULT_BASE_URL}, the default`;
  const auth = env['SVC_AUTH_URL']
    ? `now ${env['SVC_AUTH_URL']} from SVC_AUTH_URL`
    : env['SVC_BASE_URL']
      ? 'now the one the gateway names in its metadata'
      : `now ${DEFAULT_AUTH_URL}, the default`;
  return `  --server URL        the gateway that serves MCP and the API (${base}); or set SVC_BASE_URL
  --auth-server URL   the sign-in server (${auth}); or set SVC_AUTH_URL
  --json              machine-readable output on stdout
  -h, --help          this help`;
}
