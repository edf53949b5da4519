/**
 * The client-credentials grant of service accounts (docs/auth-service.md "Client credentials"):
 * which resource a service account's client may ask a token for, how long its client assertions
 * may live, and how long its tokens live. Client authentication is oidc-provider's
 * `private_key_jwt` (RFC 7523 §2.2, §3): signature, `iss` = `sub` = client id, `aud`, `exp` and the
 * one-time `jti` (its ReplayDetection records live in the shared Redis, so a replay to another
 * replica is refused too).
 */
import type { Accounts } from '@svc/accounts';
import { SLUG_PATTERN } from '@svc/accounts';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { readBot, readProject } from './request-reads.ts';

/** A client assertion lives at most 5 minutes (`exp` - `iat`), so its replay record does too. */
export const CLIENT_ASSERTION_MAX_LIFETIME_SECONDS = 300;
/** A service account's access token lives 1 hour; revoking the account ends it sooner (within a second). */
export const CLIENT_CREDENTIALS_TOKEN_TTL_SECONDS = 3_600;

/** Service account ids are their clients' ids (`bot_...`). */
export function isServiceAccountClient(clientId: string): boolean {
  return /^bot_[A-Za-z0-9_-]{1,64}$/.test(clientId);
}

/** The team endpoint URL of a workspace, the audience of a token for it. */
function teamResource(baseUrl: string, workspace: string): string {
  return `${baseUrl}/mcp/team/${workspace}`;
}

/** The workspace slug of a team endpoint URL of this base URL, or null. */
function teamOfResource(baseUrl: string, resource: string): string | null {
  const prefix = `${baseUrl}/mcp/team/`;
  if (!resource.startsWith(prefix)) return null;
  const slug = resource.slice(prefix.length);
  return SLUG_PATTERN.test(slug) ? slug : null;
}

/**
 * RFC 7523 §3 items 4-5: `exp` is required (the library checks it and the signature); here `iat`
 * is required too, and the assertion's lifetime is bounded, whatever `exp` it claims.
 */
export async function assertClientAssertionLifetime(_ctx: KoaContextWithOIDC, claims: Record<string, unknown>): Promise<void> {
  const { iat, exp } = claims;
  if (typeof iat !== 'number' || typeof exp !== 'number')
    throw new errors.InvalidClientAuth('the client_assertion JWT must carry numeric iat and exp claims');
  const now = Math.floor(Date.now() / 1000);
  if (exp - iat > CLIENT_ASSERTION_MAX_LIFETIME_SECONDS || exp - now > CLIENT_ASSERTION_MAX_LIFETIME_SECONDS)
    throw new errors.InvalidClientAuth(`the client_assertion JWT may live at most ${CLIENT_ASSERTION_MAX_LIFETIME_SECONDS} seconds`);
}

/**
 * The resource a service account's client asked for: a project of its own workspace (an MCP
 * resource, `{base}/mcp/<slug>`) or its workspace's team endpoint. Anything else is refused as the
 * account's key would be there; its level on a project is read at each call, as a key's is.
 */
export async function checkServiceAccountResource(deps: {
  accounts: Accounts;
  baseUrl: string;
  clientId: string;
  project: string | null;
  resource: string;
}): Promise<void> {
  // The request's reads, shared with the client lookup (request-reads.ts).
  const bot = await readBot(deps.accounts, deps.clientId);
  if (!bot) throw new errors.InvalidClient('no such service account');
  const team = teamOfResource(deps.baseUrl, deps.resource);
  if (team !== null) {
    if (team !== bot.workspace) throw new errors.InvalidTarget(`a service account's tokens are for its own workspace's team endpoint`);
    return;
  }
  const project = deps.project ? await readProject(deps.accounts, deps.project) : null;
  if (!project || project.workspace !== bot.workspace)
    throw new errors.InvalidTarget(
      `resource must be ${deps.baseUrl}/mcp/<project_slug> of a project of the service account's workspace, or ${teamResource(deps.baseUrl, bot.workspace)}`,
    );
}
