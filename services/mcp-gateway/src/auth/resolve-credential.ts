/**
 * Turns a presented credential into the caller it stands for at one endpoint, or the error
 * docs/contract.md "Errors" names. Malformed values (bad prefix, length or checksum) are refused
 * before Redis.
 */
import type { Accounts, ApiKeyRecord, User } from '@svc/accounts';
import { clientProfile, compileAllowedIps, SLUG_PATTERN } from '@svc/accounts';
import type { ParsedCredential } from '@svc/credentials';
import { claimedKind, parseCredential } from '@svc/credentials';
import { SvcError } from '@svc/errors';
import { tokenRole, type Role } from '@svc/policy';
import type { ResolvedCaller, Target } from './caller.ts';
import type { OAuthTokenVerifier, ServiceAccountTokenInfo } from './oauth-types.ts';
import type { Resolution } from './resolution-cache.ts';
import { payerContexts } from './payer-context.ts';
import { disabledKey, invalidKey, invalidToken, notFound, ok } from './resolution-outcomes.ts';

export interface ResolverDeps {
  accounts: Accounts;
  oauth: OAuthTokenVerifier | null;
  legacyCredentials: boolean;
  now?: () => number;
}

export function createResolver(deps: ResolverDeps) {
  const now = deps.now ?? Date.now;

  const { workspaceContext, projectContext, personContext } = payerContexts(deps.accounts);

  /** The account routes: a credential speaks for itself and its own workspace pays. */
  async function accountCaller(rec: ApiKeyRecord, base: Base): Promise<Resolution> {
    let workspace = rec.workspace;
    let type: ResolvedCaller['type'] = rec.kind === 'bot_key' ? 'bot' : 'key';
    let id = rec.kind === 'bot_key' ? rec.botId : rec.id;
    let label = `${rec.name} (${rec.prefix})`;
    if (rec.kind === 'user_key') {
      const user = await deps.accounts.users.get(rec.userId);
      if (!user) return invalidKey(`user ${rec.userId} of key ${rec.id} is gone`);
      [workspace, type, id, label] = [user.workspace, 'user', user.id, user.email];
    }
    const ctx = await workspaceContext(workspace);
    return ok({
      ...base,
      type,
      id,
      label,
      role: 'NONE',
      serviceAccount: type === 'bot',
      project: null,
      ...ctx,
      payer: { workspace: ctx.workspace, plan: ctx.plan },
      grantedProjects: [],
    });
  }

  async function fromOAuth(value: string, target: Target): Promise<Resolution> {
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
    if ('serviceAccount' in info) return fromServiceAccountToken(info, target);
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
      keyHash: '',
      keyLimit: null,
      ...(info.jkt ? { jkt: info.jkt } : {}),
      expiresAt: info.expiresAt,
      allowedIps: null,
    });
  }

  type Base = Pick<ResolvedCaller, 'legacy' | 'defaultSurface' | 'session' | 'keyHash' | 'keyLimit' | 'expiresAt' | 'allowedIps' | 'jkt'>;

  /** A service account on its workspace's team endpoint: the projects it was granted. */
  async function botOnTeam(botId: string, workspace: string, label: string, base: Base): Promise<Resolution> {
    const ws = await deps.accounts.workspaces.get(workspace);
    if (!ws) return notFound(`team ${workspace}`);
    const granted = Object.keys((await deps.accounts.bots.get(botId))?.grants ?? {});
    return ok({
      ...base,
      type: 'bot',
      id: botId,
      label,
      role: 'NONE',
      serviceAccount: true,
      project: null,
      workspace: ws.slug,
      plan: ws.plan,
      agents: ws.agents,
      payer: { workspace: ws.slug, plan: ws.plan },
      grantedProjects: granted.sort(),
    });
  }

  /**
   * A service account's client-credentials token (docs/auth-service.md "Client credentials"): the
   * account at the endpoint its token names, exactly as the account's key would be there.
   */
  async function fromServiceAccountToken(info: ServiceAccountTokenInfo, target: Target): Promise<Resolution> {
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
    const base: Base = {
      legacy: false,
      defaultSurface: 'hosted',
      session: bot.id,
      keyHash: '',
      keyLimit: null,
      expiresAt: info.expiresAt,
      allowedIps: null,
      ...jkt,
    };
    const label = `${bot.name} (OAuth client)`;
    if (target.kind === 'team') {
      if (bot.workspace !== target.slug) return invalidToken(`service account of ${bot.workspace} used on team ${target.slug}`);
      return botOnTeam(bot.id, bot.workspace, label, base);
    }
    const project = await deps.accounts.workspaces.getProject(target.slug);
    if (!project || project.workspace !== bot.workspace) return invalidToken(`service account of ${bot.workspace} used on ${target.slug}`);
    const role: Role = bot.grants[project.slug] ?? 'NONE';
    return ok({
      ...base,
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

  async function fromKey(parsed: ParsedCredential, rec: ApiKeyRecord, target: Target): Promise<Resolution> {
    const base = {
      legacy: parsed.legacy,
      defaultSurface: 'hosted' as const,
      session: rec.id,
      keyHash: rec.hash,
      keyLimit: rec.rateLimit,
      expiresAt: rec.expiresAt,
      allowedIps: compileAllowedIps(rec.allowedIps),
    };
    // A revoked service account's keys stop with it, a key still in a rotation's overlap included
    // (docs/contract.md "Credentials"); the answer is cached under the account's invalidation.
    if (rec.kind === 'bot_key' && !(await deps.accounts.bots.isLive(rec.botId, rec.workspace)))
      return invalidKey(`service account ${rec.botId} of key ${rec.id} is revoked`);
    if (target.kind === 'account') return accountCaller(rec, base);
    if (target.kind === 'team') {
      if ((rec.kind !== 'bot_key' && rec.kind !== 'legacy_team_key') || rec.workspace !== target.slug) {
        return invalidKey(
          `${rec.kind} ${rec.id} used on team ${target.slug}`,
          'The team endpoint takes a service account key of that team.',
        );
      }
      if (rec.kind === 'bot_key') return botOnTeam(rec.botId, target.slug, `${rec.name} (${rec.prefix})`, base);
      const ws = await deps.accounts.workspaces.get(target.slug);
      if (!ws) return notFound(`team ${target.slug}`);
      const granted = await deps.accounts.workspaces.projectsOf(ws.slug);
      return ok({
        ...base,
        type: 'key',
        id: rec.id,
        label: `${rec.name} (${rec.prefix})`,
        role: 'NONE',
        serviceAccount: true,
        project: null,
        workspace: ws.slug,
        plan: ws.plan,
        agents: ws.agents,
        payer: { workspace: ws.slug, plan: ws.plan },
        grantedProjects: granted.sort(),
      });
    }
    const project = await deps.accounts.workspaces.getProject(target.slug);
    let role: Role;
    let user: User | null = null;
    let type: ResolvedCaller['type'] = 'key';
    let id = rec.id;
    let label = `${rec.name} (${rec.prefix})`;
    switch (rec.kind) {
      case 'project_key':
      case 'legacy_project_key':
        if (!project || rec.project !== project.slug)
          return invalidKey(`key ${rec.id} of project ${rec.project} used on ${target.slug}`, 'Use a key created for this project.');
        role = rec.level || 'EDITOR';
        break;
      case 'legacy_team_key':
        if (!project || project.workspace !== rec.workspace)
          return invalidKey(`team key of ${rec.workspace} used on ${target.slug}`, 'Use a key of the team that owns this project.');
        role = rec.level || 'EDITOR';
        break;
      case 'bot_key': {
        if (!project || project.workspace !== rec.workspace)
          return invalidKey(
            `service account of ${rec.workspace} used on ${target.slug}`,
            'Use a service account of the workspace that owns this project.',
          );
        role = (await deps.accounts.bots.grantOf(rec.botId, project.slug)) ?? 'NONE';
        type = 'bot';
        id = rec.botId;
        break;
      }
      case 'user_key': {
        if (!project) return notFound(`project ${target.slug}`);
        user = await deps.accounts.users.get(rec.userId);
        if (!user) return invalidKey(`user ${rec.userId} of key ${rec.id} is gone`);
        role = await deps.accounts.workspaces.roleOf(user.id, project);
        type = 'user';
        id = user.id;
        label = user.email;
        break;
      }
    }
    return ok({
      ...base,
      type,
      id,
      label,
      role,
      serviceAccount: type === 'bot',
      project: project.slug,
      ...(user ? await personContext(project, user, role) : await projectContext(project)),
      grantedProjects: [],
    });
  }

  /** The caller a credential value stands for at `target`. */
  return async function resolve(value: string, target: Target): Promise<Resolution> {
    // A slug is checked before any Redis key is built from it: `proj:keys` would otherwise name
    // another key family (docs/redis-schema.md).
    if (target.kind !== 'account' && !SLUG_PATTERN.test(target.slug)) return notFound(`${target.kind} ${target.slug.slice(0, 80)}`);
    const parsed = parseCredential(value);
    if (!parsed) {
      const kind = claimedKind(value);
      return kind === 'access_token' || kind === 'refresh_token' ? invalidToken('malformed token') : invalidKey('malformed key');
    }
    if (parsed.kind === 'refresh_token') return invalidToken('a refresh token is not an access token');
    if (parsed.kind === 'access_token') return fromOAuth(value, target);
    if (parsed.legacy && !deps.legacyCredentials)
      return invalidKey('legacy credentials are turned off', 'Legacy rlm_ keys are no longer accepted: create a new svc- key.');
    const rec = await deps.accounts.keys.findByValue(value);
    if (!rec) return invalidKey('unknown key');
    if (rec.revoked) return invalidKey(`key ${rec.id} is revoked`);
    if (rec.expiresAt !== null && rec.expiresAt <= now()) return invalidKey(`key ${rec.id} expired`);
    if (rec.disabled) return disabledKey(rec.id);
    return fromKey(parsed, rec, target);
  };
}

export type Resolver = ReturnType<typeof createResolver>;
