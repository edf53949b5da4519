/**
 * The OAuth path of credential resolution: a live access token turned into the caller it stands
 * for, a person's token (docs/auth-service.md "Scopes") on the one project it was issued for, a
 * service account's client-credentials token (docs/auth-service.md "Client credentials") on the
 * endpoint its token names.
 */
import type { Accounts } from '@svc/accounts';
import { clientProfile } from '@svc/accounts';
import { SvcError } from '@svc/errors';
import { tokenRole, type Role } from '@svc/policy';
import type { CredentialFacts, Target } from './caller.ts';
import type { OAuthTokenInfo, OAuthTokenVerifier, ServiceAccountTokenInfo } from './oauth-types.ts';
import { payerContexts } from './payer-context.ts';
import type { Resolution } from './resolution-cache.ts';
import { invalidToken, ok } from './resolution-outcomes.ts';
import { serviceAccountOnTeam } from './service-account-on-team.ts';

/** What the OAuth path reads: the accounts, and the verifier (null: this gateway verifies no tokens). */
export interface OAuthCallerDeps {
  accounts: Accounts;
  oauth: OAuthTokenVerifier | null;
}

/** The caller an `svc_at_` access token stands for at `target`. */
export function oauthCaller(deps: OAuthCallerDeps) {
  const { projectContext, personContext } = payerContexts(deps.accounts);
  const onTeam = serviceAccountOnTeam(deps.accounts);

  /** A person's token, on the project it is bound to: the lowest of their role, the approved level and the scope. */
  async function personCaller(info: OAuthTokenInfo, target: Target): Promise<Resolution> {
    if (target.kind !== 'project' || info.project !== target.slug) {
      // Refreshing would not help: a new token is bound to the same project (RFC 8707 audience).
      return {
        ok: false,
        error: new SvcError('invalid_token', {
          detail: `token bound to project ${info.project}`,
          remedy: `This token is valid, but not for this project: it was issued for another one. Call that project's endpoint with it, or authorize again for ${target.kind === 'project' ? `project ${target.slug}` : 'this endpoint'}.`,
        }),
      };
    }
    const project = await deps.accounts.workspaces.getProject(target.slug);
    const user = await deps.accounts.users.get(info.userId);
    if (!project || !user) return invalidToken('the token names a project or user that no longer exists');
    const ownRole = await deps.accounts.workspaces.roleOf(user.id, project);
    // The lowest of the role, the level approved on the consent page and the token's scope.
    const role = tokenRole(ownRole, info.approvedLevel, info.scope);
    return ok({
      type: 'user',
      id: user.id,
      label: user.email,
      role,
      scope: info.scope,
      approvedLevel: info.approvedLevel,
      ...(role === ownRole ? {} : { unscopedRole: ownRole }),
      serviceAccount: false,
      project: project.slug,
      ...(await personContext(project, user, role)),
      grantedProjects: [],
      legacy: false,
      defaultSurface: clientProfile(info.clientId).surface,
      session: info.grantId,
      clientId: info.clientId,
      keyHash: '',
      keyLimit: null,
      ...(info.jkt ? { jkt: info.jkt } : {}),
      ...(info.chain ? { chain: info.chain, ancestors: info.ancestors ?? [] } : {}),
      expiresAt: info.expiresAt,
      allowedIps: null,
    });
  }

  /**
   * A service account's client-credentials token: the account at the endpoint its token names,
   * exactly as the account's key would be there.
   */
  async function serviceAccountCaller(info: ServiceAccountTokenInfo, target: Target): Promise<Resolution> {
    if (info.audience.kind !== target.kind || info.audience.slug !== target.slug) {
      const bound = info.audience.kind === 'team' ? `the team endpoint of ${info.audience.slug}` : `project ${info.audience.slug}`;
      return {
        ok: false,
        error: new SvcError('invalid_token', {
          detail: `service account token bound to ${bound}`,
          remedy: `This token was issued for ${bound}: ask the token endpoint for one with resource set to this endpoint's URL.`,
        }),
      };
    }
    const bot = await deps.accounts.bots.get(info.serviceAccount);
    if (!bot || !(await deps.accounts.bots.isLive(bot.id, bot.workspace))) return invalidToken('the service account was revoked');
    // A DPoP-bound token is used only with a proof of its key (docs/auth-service.md "DPoP").
    const jkt = info.jkt ? { jkt: info.jkt } : {};
    const facts: CredentialFacts = {
      legacy: false,
      defaultSurface: 'hosted',
      session: bot.id,
      clientId: info.serviceAccount,
      keyHash: '',
      keyLimit: null,
      expiresAt: info.expiresAt,
      allowedIps: null,
      ...jkt,
    };
    const label = `${bot.name} (OAuth client)`;
    if (target.kind === 'team') {
      if (bot.workspace !== target.slug) return invalidToken(`service account of ${bot.workspace} used on team ${target.slug}`);
      return onTeam(bot.id, bot.workspace, label, facts);
    }
    const project = await deps.accounts.workspaces.getProject(target.slug);
    if (!project || project.workspace !== bot.workspace) return invalidToken(`service account of ${bot.workspace} used on ${target.slug}`);
    const role: Role = bot.grants[project.slug] ?? 'NONE';
    return ok({
      ...facts,
      type: 'bot',
      id: bot.id,
      label,
      role,
      serviceAccount: true,
      project: project.slug,
      ...(await projectContext(project)),
      grantedProjects: [],
    });
  }

  return async function fromOAuth(value: string, target: Target): Promise<Resolution> {
    if (target.kind === 'account') {
      // RFC 8707 audience: a token is bound to the one MCP resource it was issued for.
      return {
        ok: false,
        error: new SvcError('invalid_token', {
          detail: 'OAuth token presented to an account route',
          remedy: 'OAuth access tokens are bound to one project: call /mcp/<project_slug> with them, or use an API key here.',
        }),
      };
    }
    if (!deps.oauth) return invalidToken('OAuth tokens are not verified by this gateway');
    const info = await deps.oauth.verify(value);
    if (!info) return invalidToken('unknown, expired or revoked access token');
    return 'serviceAccount' in info ? serviceAccountCaller(info, target) : personCaller(info, target);
  };
}
