/**
 * The svc-admin commands (docs/contract.md "Operator interface"). Each takes parsed options and
 * the account stores and returns the one JSON object it prints with --json.
 */
import { randomUUID } from 'node:crypto';
import type { Accounts } from '@svc/accounts';
import { AccountError, parseDuration } from '@svc/accounts';
import { isKeyLevel, isPlan, isRole } from '@svc/policy';
import { operatorActor, req, UsageError, type Command, type Options } from './command-kit.ts';
import { SCIM_COMMANDS } from './scim.ts';
import { TRUSTED_ISSUER_COMMANDS } from './trusted-issuers.ts';
import { WORKLOAD_ISSUER_COMMANDS } from './workload-issuers.ts';
import { UPSTREAM_COMMANDS } from './upstreams.ts';
import { UPSTREAM_SIGNING_KEY_COMMANDS } from './upstream-signing-key.ts';

function plan(o: Options) {
  const p = req(o, 'plan').toUpperCase();
  if (!isPlan(p)) throw new UsageError(`--plan must be one of FREE, SOLO, PRO, TEAM, ENTERPRISE (got ${p})`);
  return p;
}

function level(o: Options) {
  const l = req(o, 'level').toUpperCase();
  if (!isKeyLevel(l)) throw new UsageError(`--level must be VIEWER, EDITOR or ADMIN (got ${l})`);
  return l;
}

async function userByEmail(accounts: Accounts, email: string) {
  const u = await accounts.users.findByEmail(email);
  if (!u) throw new AccountError('not_found', `no user with email ${email}`);
  return u;
}

async function userId(accounts: Accounts, email: string): Promise<string> {
  return (await userByEmail(accounts, email)).id;
}

/** Who acts in the audit entries svc-admin writes. */
const operator = () => ({ actor: 'service:svc-admin', source: 'svc-admin', requestId: randomUUID() });

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Keys a status lists by id (the count is always whole). */
const PEPPER_WAITING_SHOWN = 100;

export const COMMANDS: Record<string, Command> = {
  'user create': async (a, o, io) => {
    const email = req(o, 'email');
    const password = await io.password();
    // The operator vouches for the address they type (docs/auth-service.md "Proven addresses").
    const u = await a.users.create({ email, emailVerified: true, ...(password === null ? {} : { password }) });
    return { id: u.id, email: u.email, workspace: u.workspace, passwordSet: password !== null };
  },
  'user confirm-email': async (a, o) => {
    const email = req(o, 'email');
    await a.users.markEmailVerified(await userId(a, email));
    return { email: email.trim().toLowerCase(), emailConfirmed: true };
  },
  'user set-password': async (a, o, io) => {
    const email = req(o, 'email');
    const password = await io.password();
    if (password === null) throw new UsageError('user set-password reads the password from --password-stdin or a terminal prompt');
    await a.users.setPassword(await userId(a, email), password);
    return { email: email.trim().toLowerCase(), passwordSet: true };
  },
  'workspace create': async (a, o) => {
    const ws = await a.workspaces.create({ slug: req(o, 'slug'), owner: await userId(a, req(o, 'owner')), plan: plan(o) });
    return { slug: ws.slug, plan: ws.plan };
  },
  'workspace set-plan': async (a, o) => {
    const agents = o['agents'];
    if (agents !== undefined && agents !== 'on' && agents !== 'off') throw new UsageError('--agents must be on or off');
    const ws = await a.workspaces.setPlan(req(o, 'slug'), plan(o), agents === undefined ? undefined : agents === 'on');
    return { slug: ws.slug, plan: ws.plan, agents: ws.agents };
  },
  // docs/auth-service.md "Second factor": the workspace policy, and the operator's reset of a
  // person's factors (an owner's own included); both audited in the workspace's log.
  'workspace factor-policy': async (a, o) => {
    const slug = req(o, 'slug');
    const set = o['required'];
    if (set !== undefined && set !== 'on' && set !== 'off') throw new UsageError('--required must be on or off');
    await a.workspaces.require(slug);
    if (set !== undefined) {
      await a.factors.setRequired(slug, set === 'on');
      await a.audit.record({
        ...operator(),
        workspace: slug,
        action: 'factor.policy_changed',
        target: `workspace:${slug}`,
        detail: { required: String(set === 'on') },
      });
    }
    return { slug, required: await a.factors.required(slug) };
  },
  'user reset-factors': async (a, o) => {
    const email = req(o, 'email');
    const user = await a.users.get(await userId(a, email));
    if (!user) throw new AccountError('not_found', `no user with email ${email}`);
    await a.factors.resetAll(user.id);
    await a.audit.record({ ...operator(), workspace: user.workspace, action: 'factor.reset', target: `user:${user.email}` });
    return { email: user.email, reset: true };
  },
  'project list': async (a, o) => {
    const workspace = await a.workspaces.require(req(o, 'workspace'));
    const projects = [];
    for (const slug of await a.workspaces.projectsOf(workspace.slug)) {
      const p = await a.workspaces.getProject(slug);
      if (p) projects.push({ slug: p.slug, name: p.name, created_at: iso(p.createdAt) });
    }
    return { workspace: workspace.slug, plan: workspace.plan, projects };
  },
  'member list': async (a, o) => {
    const project = await a.workspaces.requireProject(req(o, 'project'));
    const owner = (await a.workspaces.require(project.workspace)).owner;
    const members = [];
    for (const { userId, role } of await a.workspaces.members(project.slug)) {
      members.push({ email: (await a.users.get(userId))?.email ?? null, user_id: userId, role });
    }
    return { project: project.slug, owner: (await a.users.get(owner))?.email ?? owner, members };
  },
  'bot list': async (a, o) => {
    const bots = await a.bots.listForWorkspace(req(o, 'workspace'));
    return {
      bots: bots.map((b) => ({ id: b.id, name: b.name, grants: b.grants, created_at: iso(b.createdAt), revoked: b.revoked })),
    };
  },
  // docs/management.md "Service accounts": the old key works for the overlap; a revoked account gets no key.
  'bot rotate': async (a, o) => {
    const overlap = typeof o['overlap'] === 'string' ? o['overlap'] : '24h';
    let seconds = 0;
    if (overlap !== '0m')
      try {
        seconds = parseDuration(overlap, '--overlap');
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
    const k = await a.bots.rotateKey(req(o, 'id'), seconds);
    return { id: req(o, 'id'), key: k.key, old_key_until: iso(k.oldKeyUntil) };
  },
  'bot revoke': async (a, o) => {
    await a.bots.revoke(req(o, 'id'));
    return { id: req(o, 'id'), revoked: true };
  },
  'project create': async (a, o) => {
    const p = await a.workspaces.createProject({ slug: req(o, 'slug'), workspace: req(o, 'workspace') });
    return { slug: p.slug, workspace: p.workspace };
  },
  'member set': async (a, o) => {
    const role = req(o, 'role').toUpperCase();
    if (!isRole(role)) throw new UsageError('--role must be NONE, VIEWER, EDITOR or ADMIN');
    await a.workspaces.setRole(req(o, 'project'), await userId(a, req(o, 'email')), role);
    return { project: req(o, 'project'), email: req(o, 'email').toLowerCase(), role };
  },
  // The API's createKey through the management layer (docs/contract.md "Operator interface"): the
  // same name check, audit entry (actor service:svc-admin) and answer as POST .../keys.
  'key create': async (_a, o, io) => {
    const expires = typeof o['expires-in'] === 'string' ? o['expires-in'] : 'never';
    if (expires !== 'never') {
      try {
        parseDuration(expires, '--expires-in');
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
    }
    const k = await io.management.createKey(operatorActor(), req(o, 'project'), { name: req(o, 'name'), level: level(o), expires });
    return { id: k.id, key: k.key, name: k.name, level: k.level, expires_at: iso(k.expiresAt), rate_limit: k.rateLimit };
  },
  'key list': async (a, o) => {
    await a.workspaces.requireProject(req(o, 'project'));
    const keys = await a.keys.listForProject(req(o, 'project'));
    return {
      keys: keys.map((k) => ({
        id: k.id,
        name: k.name,
        level: k.level,
        prefix: k.prefix,
        expires_at: iso(k.expiresAt),
        last_used_at: iso(k.lastUsedAt),
        revoked: k.revoked,
      })),
    };
  },
  'key revoke': async (a, o) => {
    const k = await a.keys.revoke(req(o, 'id'));
    return { id: k.id, revoked: true };
  },
  'user-key create': async (a, o) => {
    // No credential for an unproven address, on any path (docs/security.md "Unproven addresses").
    const u = await userByEmail(a, req(o, 'email'));
    if (!u.emailVerifiedAt)
      throw new AccountError(
        'invalid',
        `${u.email} has not confirmed its address; confirm it first: user confirm-email --email ${u.email}`,
      );
    const k = await a.keys.createUserKey({ userId: u.id });
    return { key: k.key, expires_at: iso(k.record.expiresAt) };
  },
  'bot create': async (a, o) => {
    const { bot, key } = await a.bots.create({ workspace: req(o, 'workspace'), name: req(o, 'name') });
    return { id: bot.id, key: key.key };
  },
  'bot grant': async (a, o) => {
    const l = level(o);
    await a.bots.grant(req(o, 'id'), req(o, 'project'), l);
    return { id: req(o, 'id'), project: req(o, 'project'), level: l };
  },
  'access-request list': async (a, o) => {
    await a.workspaces.requireProject(req(o, 'project'));
    return { requests: await a.accessRequests.list(req(o, 'project')) };
  },
  'access-request approve': async (a, o) => {
    const r = await a.accessRequests.decide(req(o, 'id'), true);
    return { id: r.id, status: r.status };
  },
  'access-request deny': async (a, o) => {
    const r = await a.accessRequests.decide(req(o, 'id'), false);
    return { id: r.id, status: r.status };
  },
  migrate: async (a) => ({ ...(await a.migrate()) }),
  'pepper status': async (a) => {
    const s = await a.keys.pepperStatus();
    return {
      current: s.current,
      previous: s.previous,
      live_keys: s.live,
      under_current: s.underCurrent,
      waiting: s.waiting.length,
      // The runbook's test: KEY_PEPPER_PREVIOUS can go when no live key waits for it.
      previous_needed: s.waiting.length > 0,
      waiting_keys: s.waiting.slice(0, PEPPER_WAITING_SHOWN).map((k) => ({ id: k.id, last_used_at: iso(k.lastUsedAt) })),
    };
  },
  'legacy-key create': async (a, o) => {
    if (typeof o['project'] === 'string') {
      const p = await a.workspaces.requireProject(o['project']);
      const k = await a.keys.issue({ kind: 'legacy_project_key', name: 'legacy project key', project: p.slug, workspace: p.workspace });
      return { key: k.key };
    }
    if (typeof o['team'] === 'string') {
      const ws = await a.workspaces.require(o['team']);
      const k = await a.keys.issue({ kind: 'legacy_team_key', name: 'legacy team key', workspace: ws.slug });
      return { key: k.key };
    }
    throw new UsageError('legacy-key create needs --project S or --team W');
  },
  ...TRUSTED_ISSUER_COMMANDS,
  ...WORKLOAD_ISSUER_COMMANDS,
  ...SCIM_COMMANDS,
  ...UPSTREAM_COMMANDS,
  ...UPSTREAM_SIGNING_KEY_COMMANDS,
};
