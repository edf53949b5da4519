/**
 * Post-step of the token endpoint (oidc-provider docs "Pre- and post-middlewares"): shapes the
 * response per client profile (docs/contract.md "Project token response" and
 * "Personal key response").
 * - svc-cli: the OAuth tokens just issued are destroyed and a personal `svc-user-` key valid 30
 *   days is returned instead; it replaces the user's previous svc-cli key (docs/contract.md
 *   "Client profiles" rule 3).
 * - project-bound tokens: `project_slug` and `mcp_endpoint` from the token's audience; create-svc
 *   with auto_provision also gets a project API key (`api_key`).
 */
import type { Accounts } from '@svc/accounts';
import { clientProfile, CREATE_SVC_KEY_TTL_SECONDS, nameProblem, USER_KEY_TTL_SECONDS } from '@svc/accounts';
import { oauthError } from '../http/oauth-error.ts';
import { CREATE_SVC_KEY_LEVEL } from './consent-levels.ts';
import type { Logger } from '@svc/logger';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { isProfile } from './clients.ts';
import { projectOfResource } from './resource.ts';

export function tokenResponse(deps: { accounts: Accounts; baseUrl: string; logger: Logger }) {
  return async function shapeTokenResponse(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
    await next();
    if (ctx.oidc?.route !== 'token' || ctx.status !== 200) return;
    const body = ctx.body as Record<string, unknown> | undefined;
    const { AccessToken: at, RefreshToken: rt, DeviceCode: dc, Grant: grant, Client: client } = ctx.oidc.entities;
    if (!body || !at || !client) return;
    const params = (ctx.oidc.body ?? {}) as Record<string, unknown>;
    const profile = clientProfile(client.clientId);
    const personalKey = profile.issues === 'personal-key';
    const autoProvision =
      profile.autoProvision && String((dc?.params as Record<string, unknown> | undefined)?.['auto_provision'] ?? '') === 'true';

    // A key is never handed to an unconfirmed address (docs/auth-service.md "Proven addresses"),
    // even through a grant approved before confirmation was required.
    if (personalKey || autoProvision) {
      const owner = await deps.accounts.users.get(at.accountId);
      if (!owner?.emailVerifiedAt) {
        await at.destroy();
        if (rt) await rt.destroy();
        if (grant) await grant.destroy();
        const refused = oauthError('access_denied', 'the account has not confirmed its email address; confirm it and sign in again');
        ctx.status = refused.status;
        ctx.body = refused.body;
        return;
      }
    }

    if (personalKey) {
      // No OAuth token of svc-cli may outlive this response: the key is the credential.
      await at.destroy();
      if (rt) await rt.destroy();
      if (grant) await grant.destroy();
      const user = await deps.accounts.users.get(at.accountId);
      if (!user) throw new Error(`account ${at.accountId} vanished during the exchange`);
      // The version becomes the key's name: kept only when it is a safe name (docs/management.md "Names").
      const sent = typeof params['client_version'] === 'string' ? params['client_version'].slice(0, 40) : '';
      const version = nameProblem('client version', sent, 40) ? '' : sent;
      const issued = await deps.accounts.keys.createUserKey({
        userId: user.id,
        clientId: client.clientId,
        name: version ? `${client.clientId} ${version}` : client.clientId,
      });
      deps.logger.info('personal key issued', { userId: user.id, keyId: issued.id, clientVersion: version || null });
      const expiresAt = issued.record.expiresAt ?? Date.now() + USER_KEY_TTL_SECONDS * 1000;
      ctx.body = {
        access_token: issued.key,
        token_type: 'Bearer',
        key_type: 'user',
        expires_in: USER_KEY_TTL_SECONDS,
        expires_at: new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        user: { id: user.id, email: user.email },
        server_url: deps.baseUrl,
      };
      return;
    }

    const slug = projectOfResource(deps.baseUrl, at.aud);
    if (!slug) return;
    const out: Record<string, unknown> = { ...body, project_slug: slug, mcp_endpoint: `${deps.baseUrl}/mcp/${slug}` };
    // The device profiles' `openid` is only the vehicle of the approval (default-scope.ts).
    if (isProfile(client.clientId)) delete out['id_token'];
    if (dc && autoProvision) {
      const project = await deps.accounts.workspaces.requireProject(slug);
      // A key written into a folder's .env must end by itself (docs/auth-service.md "create-svc's key").
      const issued = await deps.accounts.keys.createProjectKey({
        project: slug,
        workspace: project.workspace,
        name: 'create-svc',
        level: CREATE_SVC_KEY_LEVEL,
        expiresInSeconds: CREATE_SVC_KEY_TTL_SECONDS,
      });
      out['api_key'] = issued.key;
      out['api_key_level'] = issued.record.level;
      out['api_key_expires_at'] = new Date(issued.record.expiresAt ?? 0).toISOString().replace(/\.\d{3}Z$/, 'Z');
      deps.logger.info('project key issued by create-svc', { project: slug, keyId: issued.id });
    }
    ctx.body = out;
  };
}
