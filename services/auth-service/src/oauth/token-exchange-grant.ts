/**
 * The token endpoint's token-exchange grant (RFC 8693; docs/auth-service.md "Delegation (token
 * exchange)"), registered with oidc-provider's `registerGrantType`. The token it issues is for a
 * sub-agent: an `svc_at_` AccessToken of the same person, audience the parent's project MCP
 * resource, under a Grant of its own (the requesting client's) recording its level as the
 * resource scope, so the gateway reads it as any person's token; its `act` claim names the chain
 * of acting clients and its parent is named by digest, which the gateway checks is still live.
 * The Grant is recorded as delegated from the parent's, so revoking the parent (its token or its
 * grant) revokes it. No refresh token: a delegated token ends with what it was delegated from.
 */
import { randomUUID } from 'node:crypto';
import { DELEGATIONS_PER_GRANT_MAX, delegationClaims, oidcDigest, type Accounts } from '@svc/accounts';
import { scopeForLevel } from '@svc/policy';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { ACCESS_TOKEN_TYPE, checkTokenExchange, type Delegation } from './token-exchange.ts';
import { exchangeBinding } from './token-exchange-dpop.ts';

/** The request parameters of the grant (RFC 8693 §2.1; `resource`: RFC 8707 §2). */
export const TOKEN_EXCHANGE_PARAMETERS = [
  'subject_token',
  'subject_token_type',
  'actor_token',
  'actor_token_type',
  'requested_token_type',
  'resource',
  'audience',
  'scope',
];

/** The `gty` of delegated tokens. */
const GTY = 'token-exchange';

type TokenExchangeDeps = { accounts: Accounts; baseUrl: string };

/** Seconds until `exp`, at least one. */
const secondsTo = (exp: number) => Math.max(1, exp - Math.floor(Date.now() / 1000));

/** The delegated Grant, saved: its id. It records the token's level as its resource scope. */
async function saveGrant(ctx: KoaContextWithOIDC, d: Delegation, clientId: string): Promise<string> {
  const grant = new ctx.oidc.provider.Grant({ accountId: d.user.id, clientId });
  grant.addResourceScope(d.resource, scopeForLevel(d.level));
  // The Grant ends with its one token.
  (grant as unknown as { exp: number }).exp = d.exp;
  ctx.oidc.entity('Grant', grant);
  return grant.save();
}

/**
 * Records the Grant as delegated from the parent's, before any token of it exists: whatever fails
 * after this, revoking the parent reaches the Grant, and a token saved under it later. Refuses
 * past DELEGATIONS_PER_GRANT_MAX live delegations, counted after the write.
 */
async function recordUnderParent(deps: TokenExchangeDeps, d: Delegation, grantId: string): Promise<void> {
  const live = await deps.accounts.oauthGrants.recordDelegation(d.parent.grantId, grantId, secondsTo(d.exp));
  if (live > DELEGATIONS_PER_GRANT_MAX)
    throw new errors.InvalidRequest(
      `subject_token's grant already has ${DELEGATIONS_PER_GRANT_MAX} live delegated tokens; let some end or revoke them`,
    );
}

/** The delegated token, saved under its Grant: its value. */
async function saveToken(
  ctx: KoaContextWithOIDC,
  d: Delegation,
  grantId: string,
  jkt: string | null,
  parentValue: string,
): Promise<string> {
  const { client, provider } = ctx.oidc;
  if (!client) throw new Error('the token endpoint runs client authentication first');
  const scope = scopeForLevel(d.level);
  const at = new provider.AccessToken({ accountId: d.user.id, client, grantId, gty: GTY, scope, expiresWithSession: false });
  at.resourceServer = new provider.ResourceServer(d.resource, { audience: d.resource, scope, accessTokenFormat: 'opaque' });
  // An end of its own: neither ttl.AccessToken (the code flow's 24 hours) nor a lifetime counted from the save.
  at.exp = d.exp;
  // Kept through save by the provider's extraTokenClaims (provider/configuration.ts).
  at.extra = delegationClaims(d.chain, oidcDigest(parentValue));
  if (jkt) at.setThumbprint('jkt', jkt);
  ctx.oidc.entity('AccessToken', at);
  return at.save();
}

/**
 * The parent read once more, after the delegation was recorded: a revocation of the parent either
 * found this Grant among its delegations or had deleted the parent before this read
 * (OAuthGrantStore.revoke of @svc/accounts).
 */
async function checkParentStillLive(ctx: KoaContextWithOIDC, d: Delegation, parentValue: string): Promise<void> {
  const { provider } = ctx.oidc;
  if (!(await provider.AccessToken.find(parentValue)) || !(await provider.Grant.find(d.parent.grantId)))
    throw new errors.InvalidRequest('subject_token was revoked during the exchange');
}

export function tokenExchangeGrant(deps: TokenExchangeDeps) {
  return async function tokenExchangeGrantHandler(ctx: KoaContextWithOIDC): Promise<void> {
    const { client } = ctx.oidc;
    const parentValue = String(ctx.oidc.params?.['subject_token'] ?? '');
    if (!client) throw new Error('the token endpoint runs client authentication first');
    const d = await checkTokenExchange(deps, ctx);
    const jkt = await exchangeBinding(ctx, d.parent);
    const grantId = await saveGrant(ctx, d, client.clientId);
    let accessToken: string;
    try {
      await recordUnderParent(deps, d, grantId);
      accessToken = await saveToken(ctx, d, grantId, jkt, parentValue);
      await checkParentStillLive(ctx, d, parentValue);
    } catch (err) {
      // Nothing of a refused or failed exchange stays usable.
      await deps.accounts.oauthGrants.revoke(grantId).catch(() => {});
      throw err;
    }
    const scope = scopeForLevel(d.level);
    // As the consent page records its approvals, in the log of the project's workspace (docs/audit.md).
    await deps.accounts.audit.record({
      workspace: d.project.workspace,
      actor: d.user.email,
      action: 'oauth_app.authorized',
      target: `client:${client.clientId}`,
      source: ctx.ip,
      requestId: randomUUID(),
      detail: { project: d.project.slug, scope, act: d.chain.join(' ') },
      principal: { type: 'user', id: d.user.id, label: d.user.email },
      agent: { clientId: client.clientId },
      chain: d.chain.map((sub) => ({ sub })),
    });
    // RFC 8693 §2.2.1.
    ctx.body = {
      access_token: accessToken,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: jkt ? 'DPoP' : 'Bearer',
      expires_in: secondsTo(d.exp),
      scope,
    };
  };
}
