/**
 * oidc-provider 9.13 configuration (pinned; see docs/auth-service.md "oidc-provider overrides").
 * Every option that changes library behaviour is covered by services/auth-service/test.
 */
import { MCP_SCOPES } from '@svc/policy';
import { clientProfile, type Accounts } from '@svc/accounts';
import { strictTransportSecurity, type Config } from '@svc/config';
import { DPOP_SIGNING_ALGS } from '@svc/credentials';
import type { Logger } from '@svc/logger';
import type { Configuration, JWKS, KoaContextWithOIDC } from 'oidc-provider';
import { errors } from 'oidc-provider';
import { rememberFailures } from '@svc/bounds/failure-memory.ts';
import { CIMD_MAX_DOCUMENT_BYTES, createCimdFetch } from '@svc/bounds/guarded-fetch.ts';
import { cimdAllowFetch, cimdHostAllowed } from '../oauth/cimd-throttle.ts';
import { cimdFetch } from '../oauth/cimd-fetch.ts';
import { clientNameProblem } from '../oauth/client-names.ts';
import { checkRefreshResource } from '../oauth/refresh-resource.ts';
import {
  assertClientAssertionLifetime,
  checkServiceAccountResource,
  CLIENT_CREDENTIALS_TOKEN_TTL_SECONDS,
  isServiceAccountClient,
} from '../oauth/client-credentials.ts';
import type { Throttle } from '../http/throttle.ts';
import { providerRoutes } from '../http/routes.ts';
import { PAGE_HEADERS } from '../http/security-headers.ts';
import { providerErrorPage } from '../ui/layout.ts';
import type { createDevicePages } from './device-pages.ts';
import { refreshesTokens, staticClients } from '../oauth/clients.ts';
import { TTL } from '../oauth/lifetimes.ts';
import { createInteractionPolicy } from './interaction-policy.ts';
import { projectOfResource } from '../oauth/resource.ts';
import { readProject, readUser } from '../oauth/request-reads.ts';

export interface ConfigurationDeps {
  config: Config;
  accounts: Accounts;
  jwks: JWKS;
  adapter: Configuration['adapter'];
  devicePages: ReturnType<typeof createDevicePages>;
  webUserOf: (ctx: KoaContextWithOIDC) => Promise<string | null>;
  logger: Logger;
  /** Counts Client ID Metadata Document fetches (oauth/cimd-throttle.ts). */
  throttle: Throttle;
  /**
   * Replaces the guarded outgoing fetch (@svc/bounds guarded-fetch.ts). Production never sets it; tests
   * use it to serve a document for an https host from a local server.
   */
  fetch?: Configuration['fetch'];
}

export function buildConfiguration(deps: ConfigurationDeps): Configuration {
  const { config, accounts } = deps;
  return {
    adapter: deps.adapter,
    clients: staticClients(),
    // Our one signing key is ES256 (signing-keys.ts); the library's default would be RS256.
    clientDefaults: {
      id_token_signed_response_alg: 'ES256',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
    // OAuth 2.1: the authorization code flow only (no implicit or hybrid responses).
    responseTypes: ['code', 'none'],
    // The methods some client uses: public clients (`none`) and service accounts' clients
    // (`private_key_jwt`, RFC 7523 §2.2; docs/auth-service.md "Client credentials"). Nothing holds a
    // client secret, so no `client_secret_*` method is offered or advertised.
    clientAuthMethods: ['none', 'private_key_jwt'],
    assertJwtClientAuthClaimsAndHeader: assertClientAssertionLifetime,
    jwks: deps.jwks,
    cookies: { keys: config.cookieKeys, long: { sameSite: 'lax', httpOnly: true }, short: { sameSite: 'lax', httpOnly: true } },
    routes: providerRoutes(),
    ttl: { ...TTL },
    scopes: ['openid', 'offline_access', 'email'],
    claims: { openid: ['sub'], email: ['email'] },
    extraParams: ['auto_provision', 'project_name'],
    async findAccount(_ctx, sub) {
      const user = await readUser(accounts, sub);
      if (!user) return undefined;
      return { accountId: user.id, claims: async () => ({ sub: user.id, email: user.email }) };
    },
    interactions: {
      url: (_ctx, interaction) => `/interaction/${interaction.uid}`,
      policy: createInteractionPolicy({ webUserOf: deps.webUserOf }),
    },
    // MCP authorization: S256 only, for every client (oidc-provider 9 supports S256 only).
    pkce: { required: () => true },
    // Tokens outlive the browser session that approved them (docs/auth-service.md "oidc-provider overrides").
    expiresWithSession: async () => false,
    // The library sets an opaque token's `extra` from this hook when it saves it: the claims a
    // grant set on it (a delegated token's `act` and parent: oauth/token-exchange-grant.ts) are kept.
    extraTokenClaims: async (_ctx, token) => token.extra,
    // Every profile issuing project tokens gets a refresh token, without having to ask for
    // offline_access; a personal key has none (docs/contract.md "Personal key response").
    issueRefreshToken: async (_ctx, client) => refreshesTokens(clientProfile(client.clientId)) && client.grantTypeAllowed('refresh_token'),
    // OAuth 2.1 §4.3.1 / MCP: public clients' refresh tokens rotate; reuse revokes the grant. A
    // client that authenticates (private_key_jwt) proves itself on every refresh instead (RFC 9700
    // §4.14.2), so its token does not rotate and nothing is kept to answer a retry with
    // (docs/security.md "Refresh tokens"). A refresh for a resource the grant lacks is refused
    // before the token rotates (refresh-resource.ts).
    rotateRefreshToken: (ctx) => {
      checkRefreshResource(ctx);
      return ctx.oidc.client?.clientAuthMethod === 'none';
    },
    // Browser-based MCP clients (MCP Inspector) call the token and registration endpoints.
    clientBasedCORS: () => true,
    // Every outgoing request (metadata documents, client JWKS) resolves, checks and pins its address
    // and is bounded in time and size (@svc/bounds guarded-fetch.ts), in the sign-in lane of the
    // outbound pools; a URL that failed is not fetched again for 30 s (failure-memory.ts). Metadata
    // documents are normalised (RP Metadata Choices) and their clients' key sets kept (cimd-fetch.ts).
    fetch: cimdFetch(rememberFailures(deps.fetch ?? createCimdFetch()), { hostAllowed: cimdHostAllowed(config.cimdAllowedHosts) }),
    fetchResponseBodyLimits: {
      'client_id metadata document': CIMD_MAX_DOCUMENT_BYTES,
      jwks_uri: CIMD_MAX_DOCUMENT_BYTES,
      sector_identifier_uri: CIMD_MAX_DOCUMENT_BYTES,
    },
    // RFC 9449: the algorithms a DPoP proof may use, the same list the gateway checks (docs/auth-service.md "DPoP").
    enabledJWA: { dPoPSigningAlgValues: [...DPOP_SIGNING_ALGS] },
    features: {
      devInteractions: { enabled: false },
      // RFC 9449, optional for every client; a client registered with dpop_bound_access_tokens=true
      // must send a proof at the token endpoint. No nonces (docs/auth-service.md "DPoP").
      dPoP: { enabled: true },
      deviceFlow: {
        enabled: true,
        charset: 'base-20',
        mask: '****-****',
        userCodeInputSource: deps.devicePages.userCodeInputSource,
        userCodeConfirmSource: deps.devicePages.userCodeConfirmSource,
        successSource: deps.devicePages.successSource,
      },
      // RFC 7009 §2.1 and RFC 7662 §2.1: a client revokes or introspects only tokens issued to it.
      // Said explicitly rather than left to the library's default (which asks to be replaced).
      revocation: { enabled: true, allowedPolicy: ownTokensOnly },
      introspection: { enabled: true, allowedPolicy: ownTokensOnly },
      registration: { enabled: true, initialAccessToken: false },
      userinfo: { enabled: true },
      // Service accounts' clients (docs/auth-service.md "Client credentials").
      clientCredentials: { enabled: true },
      rpInitiatedLogout: { enabled: false },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        // CIMD_ALLOWED_HOSTS (README "Configuration"): the operator's allow-list of hosts whose
        // metadata documents may be fetched; every fetch is throttled per source and per host.
        allowFetch: cimdAllowFetch({ allowedHosts: config.cimdAllowedHosts, throttle: deps.throttle }),
        // A document's client name follows the rule of registered clients' (docs/management.md "Names").
        allowClient: async (_ctx, client) => clientNameProblem(client.clientName) === null,
      },
      resourceIndicators: resourceIndicators(deps),
    },
    // The provider's error pages are ours: our layout, the security headers set in front of it
    // (app.ts), and a log line (server errors are logged by the `server_error` event).
    async renderError(ctx, out, err) {
      // An error raised once a redirect was under way (prompt=none's login_required) is still an
      // error page: never a 303 without a Location, never the client's redirect.
      if (ctx.status < 400) {
        const status = (err as { statusCode?: number }).statusCode;
        ctx.status = status !== undefined && status >= 400 ? status : 400;
        ctx.remove('Location');
      }
      if (ctx.status < 500) deps.logger.info('request refused', { path: ctx.path, status: ctx.status, error: out['error'] });
      ctx.type = 'html';
      // The same headers as every other page (the authorize endpoint lives under /api/).
      ctx.set(PAGE_HEADERS);
      const hsts = strictTransportSecurity(deps.config.authUrl);
      if (hsts) ctx.set('Strict-Transport-Security', hsts);
      ctx.body = String(providerErrorPage(out['error_description'] ?? out['error'], out['error']));
    },
  };
}

/**
 * RFC 8707 resource indicators: every token is for one project's MCP endpoint (or a service
 * account's team endpoint), and a person's for the project their Grant records.
 */
function resourceIndicators(deps: ConfigurationDeps): NonNullable<NonNullable<Configuration['features']>['resourceIndicators']> {
  const { config, accounts } = deps;
  return {
    enabled: true,
    // The project chosen on the consent page, for clients that sent no resource (device flow).
    defaultResource: async (ctx, client, oneOf) => {
      if (oneOf) return oneOf;
      // A service account's token is for one project or its team endpoint, named every time.
      if (isServiceAccountClient(client.clientId))
        throw new errors.InvalidTarget(`resource is required: ${config.baseUrl}/mcp/<project_slug> or the team endpoint`);
      const chosen = (ctx.oidc.entities.Interaction?.result as { svc?: { resource?: string } } | undefined)?.svc?.resource;
      return chosen;
    },
    useGrantedResource: async () => true,
    getResourceServerInfo: async (ctx, resource, client) => {
      const slug = projectOfResource(config.baseUrl, resource);
      if (isServiceAccountClient(client.clientId)) {
        await checkServiceAccountResource({ accounts, baseUrl: config.baseUrl, clientId: client.clientId, project: slug, resource });
        return {
          scope: MCP_SCOPES.join(' '),
          audience: resource,
          accessTokenFormat: 'opaque',
          accessTokenTTL: CLIENT_CREDENTIALS_TOKEN_TTL_SECONDS,
        };
      }
      if (!slug || !(await readProject(accounts, slug))) {
        throw new errors.InvalidTarget(`resource must be ${config.baseUrl}/mcp/<project_slug> of an existing project`);
      }
      // docs/auth-service.md "What a token is for": a person's token is for the project their
      // Grant records (the one approved on the consent page), whatever the request named
      // (a resource repeated at /authorize, or one sent beside auto_provision).
      const grant = ctx.oidc.route === 'token' ? ctx.oidc.entities.Grant : undefined;
      if (grant && !grant.getResourceScope(resource)) throw new errors.InvalidTarget('resource is not the project approved for this grant');
      return { scope: MCP_SCOPES.join(' '), audience: resource, accessTokenFormat: 'opaque', accessTokenTTL: TTL.AccessToken };
    },
  };
}

/** The allowedPolicy of revocation and introspection: only the client the token was issued to. */
async function ownTokensOnly(_ctx: unknown, client: { clientId: string }, token: { clientId?: string }): Promise<boolean> {
  return token.clientId === client.clientId;
}
