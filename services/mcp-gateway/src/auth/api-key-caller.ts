/**
 * The API key path of credential resolution (docs/contract.md "Credentials"): a live key record
 * turned into the caller it stands for on the account routes, a team endpoint or a project.
 */
import type { Accounts, ApiKeyRecord, User } from '@svc/accounts';
import { compileAllowedIps } from '@svc/accounts';
import type { ParsedCredential } from '@svc/credentials';
import type { Role } from '@svc/policy';
import type { CredentialFacts, ResolvedCaller, Target } from './caller.ts';
import { payerContexts } from './payer-context.ts';
import type { Resolution } from './resolution-cache.ts';
import { invalidKey, notFound, ok } from './resolution-outcomes.ts';
import { serviceAccountOnTeam } from './service-account-on-team.ts';

/** The caller a key record (found, not revoked, expired or disabled) stands for at `target`. */
export function apiKeyCaller(accounts: Accounts) {
  const { workspaceContext, projectContext, personContext } = payerContexts(accounts);
  const onTeam = serviceAccountOnTeam(accounts);

  /** The account routes: a credential speaks for itself and its own workspace pays. */
  async function onAccount(rec: ApiKeyRecord, facts: CredentialFacts): Promise<Resolution> {
    let workspace = rec.workspace;
    let type: ResolvedCaller['type'] = rec.kind === 'bot_key' ? 'bot' : 'key';
    let id = rec.kind === 'bot_key' ? rec.botId : rec.id;
    let label = `${rec.name} (${rec.prefix})`;
    if (rec.kind === 'user_key') {
      const user = await accounts.users.get(rec.userId);
      if (!user) return invalidKey(`user ${rec.userId} of key ${rec.id} is gone`);
      [workspace, type, id, label] = [user.workspace, 'user', user.id, user.email];
    }
    const ctx = await workspaceContext(workspace);
    return ok({
      ...facts,
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

  /** A team endpoint takes a service account's key or a legacy team key of that team. */
  async function onTeamEndpoint(rec: ApiKeyRecord, slug: string, facts: CredentialFacts): Promise<Resolution> {
    if ((rec.kind !== 'bot_key' && rec.kind !== 'legacy_team_key') || rec.workspace !== slug)
      return invalidKey(`${rec.kind} ${rec.id} used on team ${slug}`, 'The team endpoint takes a service account key of that team.');
    if (rec.kind === 'bot_key') return onTeam(rec.botId, slug, `${rec.name} (${rec.prefix})`, facts);
    const ws = await accounts.workspaces.get(slug);
    if (!ws) return notFound(`team ${slug}`);
    const granted = await accounts.workspaces.projectsOf(ws.slug);
    return ok({
      ...facts,
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

  /** A project endpoint: the key's own level, its service account's grant or its person's role there. */
  async function onProject(rec: ApiKeyRecord, slug: string, facts: CredentialFacts): Promise<Resolution> {
    const project = await accounts.workspaces.getProject(slug);
    let role: Role;
    let user: User | null = null;
    let type: ResolvedCaller['type'] = 'key';
    let id = rec.id;
    let label = `${rec.name} (${rec.prefix})`;
    switch (rec.kind) {
      case 'project_key':
      case 'legacy_project_key':
        if (!project || rec.project !== project.slug)
          return invalidKey(`key ${rec.id} of project ${rec.project} used on ${slug}`, 'Use a key created for this project.');
        role = rec.level || 'EDITOR';
        break;
      case 'legacy_team_key':
        if (!project || project.workspace !== rec.workspace)
          return invalidKey(`team key of ${rec.workspace} used on ${slug}`, 'Use a key of the team that owns this project.');
        role = rec.level || 'EDITOR';
        break;
      case 'bot_key': {
        if (!project || project.workspace !== rec.workspace)
          return invalidKey(
            `service account of ${rec.workspace} used on ${slug}`,
            'Use a service account of the workspace that owns this project.',
          );
        role = (await accounts.bots.grantOf(rec.botId, project.slug)) ?? 'NONE';
        type = 'bot';
        id = rec.botId;
        break;
      }
      case 'user_key': {
        if (!project) return notFound(`project ${slug}`);
        user = await accounts.users.get(rec.userId);
        if (!user) return invalidKey(`user ${rec.userId} of key ${rec.id} is gone`);
        role = await accounts.workspaces.roleOf(user.id, project);
        type = 'user';
        id = user.id;
        label = user.email;
        break;
      }
    }
    return ok({
      ...facts,
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

  return async function fromKey(parsed: ParsedCredential, rec: ApiKeyRecord, target: Target): Promise<Resolution> {
    const facts: CredentialFacts = {
      legacy: parsed.legacy,
      defaultSurface: 'hosted',
      session: rec.id,
      keyHash: rec.hash,
      keyLimit: rec.rateLimit,
      expiresAt: rec.expiresAt,
      allowedIps: compileAllowedIps(rec.allowedIps),
    };
    // A revoked service account's keys stop with it, a key still in a rotation's overlap included
    // (docs/contract.md "Credentials"); the answer is cached under the account's invalidation.
    if (rec.kind === 'bot_key' && !(await accounts.bots.isLive(rec.botId, rec.workspace)))
      return invalidKey(`service account ${rec.botId} of key ${rec.id} is revoked`);
    if (target.kind === 'account') return onAccount(rec, facts);
    if (target.kind === 'team') return onTeamEndpoint(rec, target.slug, facts);
    return onProject(rec, target.slug, facts);
  };
}
