/**
 * The token endpoint's `jwt-bearer` grant for ID-JAGs (docs/auth-service.md "Enterprise-managed
 * authorization"), registered with oidc-provider's `registerGrantType`. The token it issues is the
 * code flow's: an `svc_at_` AccessToken for the person, audience the project's MCP resource, with a
 * Grant recording the level as its resource scope (docs/auth-service.md "Scopes"), so the gateway
 * reads it exactly as a code-flow token. No refresh token: the next token needs a new ID-JAG, so
 * the identity provider keeps the say. The same grant carries a workload's own token (workload
 * identity federation, docs/workload-identity.md): the assertion decides which one it is
 * (workload-identity.ts isWorkloadAssertion).
 */
import { randomUUID } from 'node:crypto';
import { scopeForLevel } from '@svc/policy';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { ID_JAG_TOKEN_TTL_SECONDS, verifyIdJag, type IdJagDeps } from './id-jag.ts';
import { workloadGrant } from './workload-grant.ts';
import { isWorkloadAssertion } from './workload-identity.ts';

/** The request parameters of the grant (RFC 7523 §2.1, RFC 8707 §2, RFC 6749 §3.3). */
export const ID_JAG_GRANT_PARAMETERS = ['assertion', 'resource', 'scope'];

export function idJagGrant(deps: IdJagDeps) {
  return async function idJagGrantHandler(ctx: KoaContextWithOIDC): Promise<void> {
    const { client, params, provider } = ctx.oidc;
    if (!client || !params) throw new Error('the token endpoint runs client authentication first');
    if (await isWorkloadAssertion(deps, client.clientId, params['assertion'], params['resource'])) return workloadGrant(deps, ctx);
    const outcome = await verifyIdJag(deps, {
      assertion: params['assertion'],
      clientId: client.clientId,
      resource: params['resource'],
      scope: params['scope'],
    });
    const scope = scopeForLevel(outcome.level);

    const grant = new provider.Grant({ accountId: outcome.user.id, clientId: client.clientId });
    grant.addResourceScope(outcome.resource, scope);
    // The Grant ends with its one token.
    (grant as unknown as { expiresIn: number }).expiresIn = ID_JAG_TOKEN_TTL_SECONDS;
    const grantId = await grant.save();

    const at = new provider.AccessToken({
      accountId: outcome.user.id,
      client,
      grantId,
      gty: 'jwt-bearer',
      scope,
      expiresWithSession: false,
    });
    at.resourceServer = new provider.ResourceServer(outcome.resource, {
      audience: outcome.resource,
      scope,
      accessTokenFormat: 'opaque',
      accessTokenTTL: ID_JAG_TOKEN_TTL_SECONDS,
    });
    // ttl.AccessToken is a number (the code flow's 24 hours), which would win over accessTokenTTL.
    (at as unknown as { expiresIn: number }).expiresIn = ID_JAG_TOKEN_TTL_SECONDS;
    ctx.oidc.entity('Grant', grant);
    ctx.oidc.entity('AccessToken', at);
    const accessToken = await at.save();
    // As the consent page records its approvals, in the log of the project's workspace (docs/audit.md).
    await deps.accounts.audit.record({
      workspace: outcome.project.workspace,
      actor: outcome.user.email,
      action: 'oauth_app.authorized',
      target: `client:${client.clientId}`,
      source: ctx.ip,
      requestId: randomUUID(),
      detail: { project: outcome.project.slug, scope, identity_provider: outcome.issuer },
      principal: { type: 'user', id: outcome.user.id, label: outcome.user.email },
      agent: { clientId: client.clientId },
    });
    ctx.body = {
      access_token: accessToken,
      token_type: at.tokenType,
      expires_in: at.expiration,
      scope,
    };
  };
}
