/**
 * The token a workload's token buys (docs/workload-identity.md "The exchange"): a client-credentials
 * token of the service account the rules chose (oidc-provider's ClientCredentials model, opaque
 * `svc_at_`, audience the project's MCP resource), exactly what the account's own client would get,
 * so the gateway reads it as one (docs/auth-service.md "Client credentials") and the account's grant
 * on the project is all it may do. It lives WORKLOAD_TOKEN_TTL_SECONDS; no refresh token. The issue
 * is audited in the project's workspace with the workload's subject and issuer.
 */
import { randomUUID } from 'node:crypto';
import { MCP_SCOPES } from '@svc/policy';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { verifyWorkload, WORKLOAD_TOKEN_TTL_SECONDS, type WorkloadDeps } from './workload-identity.ts';

export async function workloadGrant(deps: WorkloadDeps, ctx: KoaContextWithOIDC): Promise<void> {
  const { client, params, provider } = ctx.oidc;
  if (!client || !params) throw new Error('the token endpoint runs client authentication first');
  const outcome = await verifyWorkload(deps, { assertion: params['assertion'], resource: params['resource'] });
  const scope = MCP_SCOPES.join(' ');
  const token = new provider.ClientCredentials({
    // The token is the service account's: its id is the client id the gateway reads.
    client: { clientId: outcome.serviceAccount.id } as never,
    scope,
    expiresIn: WORKLOAD_TOKEN_TTL_SECONDS,
  });
  token.resourceServer = new provider.ResourceServer(outcome.resource, {
    audience: outcome.resource,
    scope,
    accessTokenFormat: 'opaque',
    accessTokenTTL: WORKLOAD_TOKEN_TTL_SECONDS,
  });
  ctx.oidc.entity('ClientCredentials', token);
  const value = await token.save();
  await deps.accounts.audit.record({
    workspace: outcome.project.workspace,
    actor: `workload:${outcome.subject}`,
    action: 'workload.token_issued',
    target: `service_account:${outcome.serviceAccount.id}`,
    source: ctx.ip,
    requestId: randomUUID(),
    detail: {
      project: outcome.project.slug,
      issuer: outcome.trusted.issuer,
      kind: outcome.trusted.kind,
      subject: outcome.subject,
      ...outcome.matched,
    },
    principal: { type: 'service_account', id: outcome.serviceAccount.id, label: outcome.serviceAccount.name },
    agent: { clientId: client.clientId },
  });
  ctx.body = { access_token: value, token_type: token.tokenType, expires_in: token.expiration, scope };
}
