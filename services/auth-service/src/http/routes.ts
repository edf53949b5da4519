/**
 * The auth host's routes, each declared once (docs/auth-service.md "Endpoints" and "Layout"): its
 * path, and how a POST body is read in front of it. oidc-provider's endpoints (`provider: true`,
 * under the names of its `routes` option) configure the provider and name the traces; app.ts,
 * mount-pages.ts, the probes and the second factor's routes mount the others by their entry; the
 * body parsers' path lists are derived from the table (`postBodies`), so a route and its parser
 * cannot drift apart. Links inside pages are text of their templates (ui/ is below this table).
 */

/**
 * How a POST body is read before the route's steps: `oauth`, a form or JSON turned into the form
 * oidc-provider reads (oauth/body.ts, docs/auth-service.md "Bodies"); `form`, a page's
 * urlencoded form. A route without one reads no body in front of it (oidc-provider reads its own,
 * the dashboard's router its forms).
 */
export type BodyKind = 'oauth' | 'form';

/** One route: its path (an Express pattern), how its POST body is read, and whether oidc-provider serves it. */
export interface HostRoute {
  readonly path: string;
  readonly body?: BodyKind;
  readonly provider?: true;
  /** A POST another site's page sends by design (SAML's HTTP-POST binding): the origin check lets it through. */
  readonly crossSite?: true;
}

/** Every route of the auth host, grouped as docs/auth-service.md "Endpoints" lists them. */
export const ROUTES = {
  // oidc-provider's endpoints (snake_case: the names of its `routes` option).
  authorization: { path: '/api/oauth/authorize', provider: true },
  token: { path: '/api/oauth/token', provider: true, body: 'oauth' },
  device_authorization: { path: '/api/oauth/device/code', provider: true, body: 'oauth' },
  // The code entry page: a form of ours too, which the code entry throttle reads.
  code_verification: { path: '/device', provider: true, body: 'form' },
  registration: { path: '/api/oauth/register', provider: true },
  revocation: { path: '/api/oauth/revoke', provider: true, body: 'oauth' },
  introspection: { path: '/api/oauth/introspect', provider: true, body: 'oauth' },
  jwks: { path: '/api/oauth/jwks', provider: true },
  userinfo: { path: '/api/oauth/userinfo', provider: true },
  end_session: { path: '/api/oauth/end-session', provider: true },
  pushed_authorization_request: { path: '/api/oauth/par', provider: true, body: 'oauth' },
  // docs/contract.md "Hosts and endpoints": the device grant is also accepted here (app.ts hands it to `token`).
  deviceToken: { path: '/api/oauth/device/token' },

  // The probes (health.ts): answered without Redis, never traced.
  healthz: { path: '/healthz' },
  readyz: { path: '/readyz' },
  metrics: { path: '/metrics' },

  // The pages (mount-pages.ts).
  home: { path: '/' },
  signIn: { path: '/signin', body: 'form' },
  ssoCallback: { path: '/sso/callback' },
  // OpenID Connect Back-Channel Logout 1.0: the workspace's provider POSTs a logout token (sso/backchannel-logout.ts).
  ssoBackchannelLogout: { path: '/api/sso/backchannel-logout/:workspace', body: 'form' },
  // SAML (docs/auth-service.md "SAML"): the SP's metadata, its ACS (its body read by its own parser, up to SSO_MAX_SAML_RESPONSE_BYTES), the step back.
  samlMetadata: { path: '/sso/saml/:workspace/metadata' },
  samlAcs: { path: '/sso/saml/:workspace/acs', crossSite: true },
  samlDone: { path: '/sso/saml/:workspace/done' },
  signUp: { path: '/signup', body: 'form' },
  signOut: { path: '/signout', body: 'form' },
  forgot: { path: '/forgot', body: 'form' },
  reset: { path: '/reset', body: 'form' },
  verifyEmail: { path: '/verify-email', body: 'form' },
  invitation: { path: '/invitation', body: 'form' },
  interaction: { path: '/interaction/:uid' },
  consent: { path: '/interaction/:uid/consent', body: 'form' },
  abort: { path: '/interaction/:uid/abort', body: 'form' },
  requestAccess: { path: '/interaction/:uid/request-access', body: 'form' },
  createProject: { path: '/interaction/:uid/create-project', body: 'form' },
  confirmEmail: { path: '/interaction/:uid/confirm-email', body: 'form' },
  // The dashboard's router, which reads its own forms (dashboard/routes.ts).
  dashboard: { path: '/dashboard' },

  // SCIM 2.0 provisioning, one service provider per workspace (scim/router.ts): JSON under a bearer token.
  scim: { path: '/scim/v2/:workspace' },

  // The second factor (factors/routes.ts).
  signInFactor: { path: '/signin/factor', body: 'form' },
  signInFactorPasskey: { path: '/signin/factor/passkey', body: 'form' },
  enrol: { path: '/signin/enrol', body: 'form' },
  passkeySignIn: { path: '/signin/passkey', body: 'form' },
  factors: { path: '/factors' },
  totp: { path: '/factors/totp', body: 'form' },
  totpRemove: { path: '/factors/totp/remove', body: 'form' },
  stepUp: { path: '/factors/step-up', body: 'form' },
  stepUpPasskey: { path: '/factors/step-up/passkey', body: 'form' },
  passkeys: { path: '/factors/passkey', body: 'form' },
  passkeyRemove: { path: '/factors/passkey/remove', body: 'form' },
  // Served from our origin so the page CSP allows it with `script-src 'self'` (factors/passkey-script.ts).
  passkeyScript: { path: '/assets/passkey.js' },
} as const satisfies Record<string, HostRoute>;

type Routes = typeof ROUTES;

/** The names of oidc-provider's endpoints in the table. */
type ProviderRouteName = { [K in keyof Routes]: Routes[K] extends { provider: true } ? K : never }[keyof Routes];

const ALL: readonly [string, HostRoute][] = Object.entries(ROUTES);

/** The paths whose POST bodies are read as `kind` in front of their routes, for the app's body parsers. */
export function postBodies(kind: BodyKind): string[] {
  return ALL.filter(([, route]) => route.body === kind).map(([, route]) => route.path);
}

/** oidc-provider's `routes` option: each of its endpoints' paths under its name. */
export function providerRoutes(): Record<ProviderRouteName, string> {
  return Object.fromEntries(ALL.filter(([, route]) => route.provider).map(([name, route]) => [name, route.path])) as Record<
    ProviderRouteName,
    string
  >;
}

/** The probes' paths: answered without Redis (store-outage.ts) and never traced (trace-requests.ts). */
export const PROBE_PATHS: ReadonlySet<string> = new Set([ROUTES.healthz.path, ROUTES.readyz.path, ROUTES.metrics.path]);
