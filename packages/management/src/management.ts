/**
 * The management layer on the account stores (docs/management.md "Who may do what"): each
 * operation finds the actor's role where it acts, refuses what the role does not allow, and
 * records what it did in the workspace's audit log.
 * - A project's keys: every member sees them; an EDITOR creates VIEWER and EDITOR keys and revokes
 *   or rolls keys up to EDITOR; an ADMIN does all of it; a VIEWER only looks.
 * - Access requests and members: an ADMIN of the project decides and manages; members see the
 *   member list.
 * - Service accounts, usage and the audit log: the workspace's owner.
 * - A project key acts only within its own project, with its level as its role, and only an ADMIN
 *   key manages; it cannot act on a workspace.
 * - An OAuth token granted mcp:admin acts as its person on its own project only (`onlyProject`).
 * - A project the actor has no role on is answered as missing (404), never as forbidden, so no
 *   one learns who holds which slug.
 * - Proven addresses (docs/management.md "Invitations"): a person whose address is not confirmed
 *   decides no access request; only a confirmed account becomes a member, by a decision or when
 *   added; adding any other address mails it an invitation that its owner accepts.
 */
import {
  AUDIT_ACTIONS,
  AccountError,
  EMAIL_PATTERN,
  K,
  checkPassword,
  endPersonalCredentials,
  nameProblem,
  parseDuration,
  slugStem,
  WINDOWS,
  type Accounts,
  type ApiKeyRecord,
  type AuditAction,
  type Invitation,
  type Project,
  type Redis,
  type RequestOutcome,
} from '@svc/accounts';
import type { Mailer } from '@svc/mail';
import { approvedLevel, isKeyLevel, planLimits, type KeyLevel, type Role } from '@svc/policy';
import { parseAuditQuery, type AuditQueryInput } from './audit-query.ts';
import { sweepKeyExpiries } from './expiry.ts';
import { KEY_DEFAULTS } from './contract/defaults.ts';
import { createNotices } from './notices.ts';
import {
  ManagementError,
  type AccountInfo,
  type Actor,
  type AuditRow,
  type BotRow,
  type InvitationRow,
  type KeyRow,
  type MemberRow,
  type MyRequestRow,
  type NewKey,
  type ProjectRow,
  type RequestRow,
  type Usage,
} from './types.ts';

const CREATABLE: Record<Role, readonly KeyLevel[]> = {
  ADMIN: ['VIEWER', 'EDITOR', 'ADMIN'],
  EDITOR: ['VIEWER', 'EDITOR'],
  VIEWER: [],
  NONE: [],
};
const MAX_NAME = 80;

export interface Management {
  projectsOf(actor: Actor): Promise<ProjectRow[]>;
  /** Workspaces the actor may create projects in. */
  workspacesOf(actor: Actor): Promise<string[]>;
  createProject(actor: Actor, input: { name: string; workspace: string }): Promise<{ slug: string }>;
  keys(actor: Actor, project: string): Promise<{ keys: KeyRow[]; creatableLevels: readonly KeyLevel[]; canRevoke: boolean }>;
  createKey(
    actor: Actor,
    project: string,
    input: { name: string; level: string; expires: string; rateLimit?: string | number | null },
  ): Promise<NewKey>;
  /** A key's own requests-per-minute limit, below the plan's (null: the plan's alone). */
  setKeyLimit(actor: Actor, project: string, id: string, rateLimit: string | number | null | undefined): Promise<KeyRow>;
  revokeKey(actor: Actor, project: string, id: string): Promise<void>;
  rollKey(actor: Actor, project: string, id: string, overlap: string): Promise<NewKey>;
  requests(actor: Actor, project: string): Promise<{ requests: RequestRow[]; canDecide: boolean }>;
  decideRequest(actor: Actor, project: string, id: string, decision: { approve: true; level: string } | { approve: false }): Promise<void>;
  members(actor: Actor, project: string): Promise<{ members: MemberRow[]; invitations: InvitationRow[]; canManage: boolean }>;
  /** A confirmed account becomes a member at once; any other address is mailed an invitation (`invited`). */
  addMember(actor: Actor, project: string, input: { email: string; role: string }): Promise<{ invited: boolean }>;
  cancelInvitation(actor: Actor, project: string, id: string): Promise<void>;
  setRole(actor: Actor, project: string, userId: string, role: string): Promise<void>;
  removeMember(actor: Actor, project: string, userId: string): Promise<void>;
  bots(actor: Actor, workspace: string): Promise<{ bots: BotRow[]; projects: string[]; canManage: boolean }>;
  createBot(actor: Actor, workspace: string, name: string): Promise<{ id: string; bot: string; key: string }>;
  grantBot(actor: Actor, workspace: string, id: string, project: string, level: string): Promise<void>;
  rotateBot(actor: Actor, workspace: string, id: string): Promise<{ id: string; bot: string; key: string }>;
  revokeBot(actor: Actor, workspace: string, id: string): Promise<void>;
  usage(actor: Actor, workspace: string): Promise<Usage>;
  /** A page of the audit log; a cursor, action or limit that is not valid is a 400 naming it. */
  audit(
    actor: Actor,
    workspace: string,
    page: AuditQueryInput,
  ): Promise<{ entries: AuditRow[]; next: string | null; actions: readonly string[] }>;
  /** Every kept entry as chunks of JSON lines, read as they are taken (streamExport writes them). */
  auditExport(actor: Actor, workspace: string): Promise<AsyncIterable<string>>;
  account(actor: Actor): Promise<AccountInfo>;
  revokePersonalKey(actor: Actor, id: string): Promise<void>;
  /** The access requests the signed-in person made, with their status (docs/management.md). */
  myRequests(actor: Actor): Promise<MyRequestRow[]>;
  /** Ends an OAuth grant the person gave an app: its tokens stop at every gateway within a second. */
  revokeApp(actor: Actor, id: string): Promise<void>;
  /**
   * A key's value reported as leaked: the key is revoked and the report recorded. Holding the key
   * is proof enough; the answer is the same whether or not it existed.
   */
  reportLeak(key: string, from: { source: string; requestId: string }): Promise<void>;
  /** The signed-in person's new password, after their current one (docs/management.md). */
  changePassword(actor: Actor, current: string, next: string): Promise<void>;
  /** One key-expiry sweep: warnings mailed, `key.expired` recorded (docs/management.md "Expiry"). */
  sweepKeyExpiries(): Promise<{ warned: number; expired: number }>;
  /** Tells the project's admins of a new access request (by email; never fails the request). */
  /** Mails the admins when the request is due a mail (RequestOutcome.notifyAdmins); says whether it did. */
  accessRequested(request: RequestOutcome): Promise<{ mailed: boolean }>;
}

export function createManagement(
  accounts: Accounts,
  deps: { redis: Redis; now?: () => number; mailer?: Mailer; authUrl?: string; onNoticeError?: (err: unknown) => void },
): Management {
  const notices = createNotices(accounts, deps.mailer, deps.authUrl ?? '');
  // Sent in the background: a slow or absent mail server never holds the request that caused it.
  const notify = (send: Promise<void>) => void send.catch((err: unknown) => deps.onNoticeError?.(err));
  const now = deps.now ?? Date.now;

  /** One audit entry for what `actor` just did in `workspace` (docs/audit.md). */
  const note = (actor: Actor, workspace: string, action: AuditAction, target: string, detail?: Record<string, string>) =>
    accounts.audit.record({
      workspace,
      actor: actor.label,
      action,
      target,
      source: actor.source,
      requestId: actor.requestId,
      ...(detail ? { detail } : {}),
    });
  /** A full collection (docs/management.md "Collection limits") is a 409 whose message names the limit. */
  const full = (err: unknown): never => {
    if (err instanceof AccountError && err.code === 'limit') throw new ManagementError(409, err.message);
    throw err;
  };
  const keyTarget = (k: { id: string; prefix: string; name: string }) => `key:${k.id} (${k.prefix}, "${k.name}")`;

  async function projectFor(actor: Actor, slug: string): Promise<{ project: Project; role: Role }> {
    const project = await accounts.workspaces.getProject(slug);
    let role: Role = 'NONE';
    if (project && actor.kind === 'person' && (actor.onlyProject ?? slug) === slug)
      role = await accounts.workspaces.roleOf(actor.userId, project);
    if (project && actor.kind === 'project_key' && actor.project === slug) role = actor.level;
    if (!project || role === 'NONE') throw new ManagementError(404, `There is no project ${slug} you can open.`);
    return { project, role };
  }

  /** The person behind the actor; a key acting for itself has none. */
  function personOf(actor: Actor, what: string): string {
    if (actor.kind !== 'person') throw new ManagementError(403, `A project key cannot ${what}; sign in or use your personal key.`);
    if (actor.onlyProject)
      throw new ManagementError(403, `An OAuth token manages its own project only; to ${what}, use your personal key.`);
    return actor.userId;
  }

  async function adminOf(actor: Actor, slug: string, what: string) {
    const p = await projectFor(actor, slug);
    if (p.role !== 'ADMIN') throw new ManagementError(403, `Only the project's admins can ${what}; your role here is ${p.role}.`);
    return p;
  }

  /** A person acting must have confirmed their address to `what`; keys are not people and pass. */
  async function confirmedActor(actor: Actor, what: string): Promise<void> {
    if (actor.kind !== 'person') return;
    if (!(await accounts.users.get(actor.userId))?.emailVerifiedAt)
      throw new ManagementError(
        403,
        `Confirm your email address before you ${what}: open the link we mailed you, or send a new one from your account page.`,
      );
  }

  async function ownerOf(actor: Actor, workspace: string, what: string) {
    const userId = personOf(actor, what);
    const ws = await accounts.workspaces.get(workspace);
    if (!ws || ws.owner !== userId) throw new ManagementError(403, `Only the owner of workspace ${workspace} can ${what}.`);
    return ws;
  }

  const status = (k: ApiKeyRecord): KeyRow['status'] =>
    k.revoked
      ? 'revoked'
      : k.expiresAt !== null && k.expiresAt <= now()
        ? 'expired'
        : k.expiresAt !== null && k.expiresAt - now() < 7 * 86_400_000
          ? 'expiring'
          : 'active';

  const row = (k: ApiKeyRecord): KeyRow => ({
    id: k.id,
    name: k.name,
    level: k.level || '',
    prefix: k.prefix,
    createdAt: k.createdAt,
    expiresAt: k.expiresAt,
    lastUsedAt: k.lastUsedAt,
    status: status(k),
    rateLimit: k.rateLimit,
  });

  async function keyOfProject(slug: string, id: string): Promise<ApiKeyRecord> {
    const key = await accounts.keys.getById(id);
    if (!key || key.project !== slug || key.kind !== 'project_key') throw new ManagementError(404, 'There is no such key in this project.');
    return key;
  }

  function mayChangeKey(role: Role, key: ApiKeyRecord): void {
    const level = key.level || 'ADMIN';
    if (!CREATABLE[role].includes(level as KeyLevel))
      throw new ManagementError(403, `Your role (${role}) cannot change ${level} keys; ask a project admin.`);
  }

  function expiryOf(text: string): number | undefined {
    if (text === 'never') return undefined;
    try {
      return parseDuration(text, 'Expiry');
    } catch (err) {
      throw new ManagementError(400, (err as Error).message, 'expires');
    }
  }

  /**
   * A key's own limit as asked for: empty or null for none, else a whole number from 1 to the
   * plan's requests per minute (docs/management.md "Per-key limits").
   */
  async function keyLimitOf(workspace: string, value: string | number | null | undefined): Promise<number | null> {
    if (value === undefined || value === null || value === '') return null;
    const plan = (await accounts.workspaces.get(workspace))?.plan ?? 'FREE';
    const ceiling = planLimits(plan).requestsPerMinute;
    const n = typeof value === 'number' ? value : /^\d{1,9}$/.test(value.trim()) ? Number(value.trim()) : NaN;
    if (!Number.isInteger(n) || n < 1 || n > ceiling)
      throw new ManagementError(
        400,
        `A key's limit is a whole number of requests per minute from 1 to ${ceiling} (the ${plan} plan's limit), or empty for the plan's.`,
        'rateLimit',
      );
    return n;
  }

  return {
    async projectsOf(actor) {
      if (actor.kind === 'project_key') {
        const p = await accounts.workspaces.getProject(actor.project);
        return p ? [{ slug: p.slug, name: p.name, workspace: p.workspace, role: actor.level }] : [];
      }
      return (await accounts.workspaces.accessibleProjects(actor.userId)).map((a) => ({
        slug: a.project.slug,
        name: a.project.name,
        workspace: a.project.workspace,
        role: a.role,
      }));
    },

    async workspacesOf(actor) {
      return actor.kind === 'person' ? accounts.workspaces.ownedBy(actor.userId) : [];
    },

    async createProject(actor, input) {
      // docs/management.md "Names": no control, invisible or direction-changing characters.
      const projectNameProblem = nameProblem('project', input.name, 60);
      if (projectNameProblem) throw new ManagementError(400, projectNameProblem, 'name');
      await ownerOf(actor, input.workspace, 'create projects there');
      const stem = slugStem(input.name);
      if (stem.length < 2) throw new ManagementError(400, 'The name needs at least two letters or digits.', 'name');
      const project = await accounts.workspaces
        .createProjectWithFreeSlug({ stem, workspace: input.workspace, name: input.name })
        .catch((err: unknown) => {
          if (err instanceof AccountError && err.code === 'conflict')
            throw new ManagementError(409, 'No free address for a project of that name; choose another name.', 'name');
          return full(err);
        });
      await note(actor, input.workspace, 'project.created', `project:${project.slug}`);
      return { slug: project.slug };
    },

    async keys(actor, slug) {
      const { role } = await projectFor(actor, slug);
      const keys = (await accounts.keys.listForProject(slug)).filter((k) => k.kind === 'project_key').map(row);
      return { keys: keys.reverse(), creatableLevels: CREATABLE[role], canRevoke: CREATABLE[role].length > 0 };
    },

    async createKey(actor, slug, input) {
      const { project, role } = await projectFor(actor, slug);
      const keyNameProblem = nameProblem('key', input.name, MAX_NAME);
      if (keyNameProblem) throw new ManagementError(400, keyNameProblem, 'name');
      if (CREATABLE[role].length === 0) throw new ManagementError(403, `Your role on this project (${role}) cannot create keys.`);
      const level = input.level;
      if (!isKeyLevel(level) || !CREATABLE[role].includes(level))
        throw new ManagementError(400, `Your role (${role}) can create ${CREATABLE[role].join(' or ') || 'no'} keys.`, 'level');
      const expiresInSeconds = expiryOf(input.expires);
      const rateLimit = await keyLimitOf(project.workspace, input.rateLimit);
      const issued = await accounts.keys
        .createProjectKey({
          project: slug,
          workspace: project.workspace,
          level,
          name: input.name,
          rateLimit,
          ...(expiresInSeconds ? { expiresInSeconds } : {}),
        })
        .catch(full);
      await note(actor, project.workspace, 'key.created', keyTarget(issued.record), {
        project: slug,
        level,
        expires: input.expires,
        ...(rateLimit ? { rate_limit: `${rateLimit}/min` } : {}),
      });
      return { id: issued.id, key: issued.key, name: input.name, level, expiresAt: issued.record.expiresAt, rateLimit } satisfies NewKey;
    },

    async setKeyLimit(actor, slug, id, value) {
      const { project, role } = await projectFor(actor, slug);
      const key = await keyOfProject(slug, id);
      mayChangeKey(role, key);
      if (value === undefined) throw new ManagementError(400, 'Say the limit: a number of requests per minute, or none.', 'rateLimit');
      if (key.revoked) throw new ManagementError(409, 'This key is revoked; its limit no longer matters.');
      const rateLimit = await keyLimitOf(project.workspace, value);
      await accounts.keys.setRateLimit(key.id, rateLimit);
      await note(actor, project.workspace, 'key.limit_changed', keyTarget(key), {
        project: slug,
        rate_limit: rateLimit ? `${rateLimit}/min` : 'plan',
      });
      return row({ ...key, rateLimit });
    },

    async revokeKey(actor, slug, id) {
      const { project, role } = await projectFor(actor, slug);
      const key = await keyOfProject(slug, id);
      mayChangeKey(role, key);
      await accounts.keys.revoke(key.id);
      await note(actor, project.workspace, 'key.revoked', keyTarget(key), { project: slug });
    },

    async rollKey(actor, slug, id, overlap) {
      const { project, role } = await projectFor(actor, slug);
      const old = await keyOfProject(slug, id);
      mayChangeKey(role, old);
      if (old.revoked) throw new ManagementError(409, 'This key is revoked; create a new one instead.');
      // docs/management.md "Operations": a key that has ended is not brought back by a roll.
      if (old.expiresAt !== null && old.expiresAt <= now())
        throw new ManagementError(409, 'This key has expired; create a new one instead.');
      let overlapSeconds: number;
      try {
        overlapSeconds = overlap === '0m' ? 0 : parseDuration(overlap, 'Overlap');
      } catch (err) {
        throw new ManagementError(400, (err as Error).message, 'overlap');
      }
      const remaining = old.expiresAt === null ? undefined : Math.max(1, Math.round((old.expiresAt - old.createdAt) / 1000));
      const issued = await accounts.keys
        .createProjectKey({
          project: slug,
          workspace: project.workspace,
          level: old.level || KEY_DEFAULTS.unleveled,
          name: old.name,
          rateLimit: old.rateLimit,
          ...(remaining ? { expiresInSeconds: remaining } : {}),
        })
        .catch(full);
      // The old key ends when the overlap does, or sooner when its own expiry comes first: the
      // end reported is the one the key record holds.
      let until = now();
      if (overlapSeconds === 0) await accounts.keys.revoke(old.id);
      else until = (await accounts.keys.expireAt(old.id, until + overlapSeconds * 1000)).expiresAt ?? until;
      await note(actor, project.workspace, 'key.rolled', keyTarget(old), {
        project: slug,
        replacement: `key:${issued.id} (${issued.record.prefix})`,
        old_key_until: new Date(until).toISOString(),
      });
      return {
        id: issued.id,
        key: issued.key,
        name: old.name,
        level: old.level,
        expiresAt: issued.record.expiresAt,
        rateLimit: old.rateLimit,
        replacedUntil: until,
      };
    },

    async requests(actor, slug) {
      await adminOf(actor, slug, 'see access requests');
      const all = await accounts.accessRequests.list(slug);
      return {
        canDecide: true,
        requests: all
          .map((r) => ({
            id: r.id,
            requester: r.requester.label,
            level: r.requested_level,
            reason: r.reason,
            createdAt: Date.parse(r.created_at),
            status: r.status,
            grantedLevel: r.granted_level,
            decidedBy: r.decided_by,
            decidedAt: r.decided_at ? Date.parse(r.decided_at) : null,
          }))
          .sort((a, b) => b.createdAt - a.createdAt),
      };
    },

    async decideRequest(actor, slug, id, decision) {
      const { project } = await adminOf(actor, slug, 'decide access requests');
      await confirmedActor(actor, 'decide access requests');
      const request = await accounts.accessRequests.get(id);
      if (!request || request.project !== slug) throw new ManagementError(404, 'There is no such access request in this project.');
      if (request.status !== 'pending') throw new ManagementError(409, `This request was already ${request.status}.`);
      if (decision.approve && !isKeyLevel(decision.level)) throw new ManagementError(400, 'Choose VIEWER, EDITOR or ADMIN.', 'level');
      if (decision.approve && request.requester.type === 'user' && !(await accounts.users.get(request.requester.id))?.emailVerifiedAt)
        throw new ManagementError(
          409,
          `${request.requester.label} has not confirmed that address, so it cannot become a member; add it as a member instead to mail it an invitation.`,
        );
      const decided = await accounts.accessRequests
        .decide(id, decision.approve, decision.approve ? (decision.level as KeyLevel) : undefined, actor.label)
        .catch(full);
      notify(notices.accessDecided(decided, decision.approve ? decision.level : null));
      await note(
        actor,
        project.workspace,
        decision.approve ? 'access_request.approved' : 'access_request.denied',
        `access_request:${id} (${request.requester.label})`,
        {
          project: slug,
          asked: request.requested_level,
          ...(decision.approve ? { granted: decision.level } : {}),
        },
      );
    },

    async members(actor, slug) {
      const { project, role } = await projectFor(actor, slug);
      const owner = (await accounts.workspaces.get(project.workspace))?.owner;
      const rows = [];
      if (owner) rows.push({ userId: owner, email: (await accounts.users.get(owner))?.email ?? owner, role: 'ADMIN', owner: true });
      for (const m of await accounts.workspaces.members(slug)) {
        if (m.userId === owner) continue;
        rows.push({ userId: m.userId, email: (await accounts.users.get(m.userId))?.email ?? m.userId, role: m.role, owner: false });
      }
      const invitations = (await accounts.invitations.list(slug)).map((i: Invitation) => ({
        id: i.id,
        email: i.email,
        role: i.role,
        invitedBy: i.invitedBy,
        createdAt: i.createdAt,
        expiresAt: i.expiresAt,
      }));
      return { members: rows, invitations, canManage: role === 'ADMIN' };
    },

    async addMember(actor, slug, input) {
      const { project } = await adminOf(actor, slug, 'add members');
      await confirmedActor(actor, 'add members');
      const role = input.role;
      if (!isKeyLevel(role)) throw new ManagementError(400, 'Choose VIEWER, EDITOR or ADMIN.', 'role');
      const email = input.email.trim().toLowerCase();
      if (!EMAIL_PATTERN.test(email)) throw new ManagementError(400, `"${input.email}" is not an email address.`, 'email');
      const user = await accounts.users.findByEmail(email);
      if (user?.emailVerifiedAt) {
        await accounts.workspaces.setRole(slug, user.id, role).catch(full);
        await note(actor, project.workspace, 'member.added', `user:${user.email}`, { project: slug, role });
        return { invited: false };
      }
      // No confirmed account has this address: only whoever reads its mail may take the role.
      if (!deps.mailer?.enabled)
        throw new ManagementError(
          409,
          `No confirmed svc account uses ${email}, and email is off on this server, so no invitation can be sent. Ask them to confirm their address (an operator can: svc-admin user confirm-email).`,
          'email',
        );
      const { invitation, token } = await accounts.invitations
        .create({ project: slug, email, role, invitedBy: actor.label })
        .catch((err: unknown) => {
          if (err instanceof AccountError && err.code === 'conflict') throw new ManagementError(409, err.message, 'email');
          return full(err);
        });
      notify(notices.invited(invitation, `${deps.authUrl ?? ''}/invitation?token=${token}`));
      await note(actor, project.workspace, 'member.invited', `user:${email}`, {
        project: slug,
        role,
        expires: new Date(invitation.expiresAt).toISOString(),
      });
      return { invited: true };
    },

    async cancelInvitation(actor, slug, id) {
      const { project } = await adminOf(actor, slug, 'cancel invitations');
      const invitation = await accounts.invitations.get(id);
      if (!invitation || !(await accounts.invitations.cancel(slug, id)))
        throw new ManagementError(404, 'There is no such pending invitation in this project.');
      await note(actor, project.workspace, 'member.invitation_cancelled', `user:${invitation.email}`, { project: slug });
    },

    async setRole(actor, slug, userId, role) {
      const { project } = await adminOf(actor, slug, 'change roles');
      if (!isKeyLevel(role)) throw new ManagementError(400, 'Choose VIEWER, EDITOR or ADMIN.', 'role');
      if ((await accounts.workspaces.get(project.workspace))?.owner === userId)
        throw new ManagementError(409, "The workspace owner's role cannot change.");
      if (!(await accounts.workspaces.members(slug)).some((m) => m.userId === userId))
        throw new ManagementError(404, 'That person is not a member.');
      await accounts.workspaces.setRole(slug, userId, role);
      await note(actor, project.workspace, 'member.role_changed', `user:${(await accounts.users.get(userId))?.email ?? userId}`, {
        project: slug,
        role,
      });
    },

    async removeMember(actor, slug, userId) {
      const { project } = await adminOf(actor, slug, 'remove members');
      if ((await accounts.workspaces.get(project.workspace))?.owner === userId)
        throw new ManagementError(409, 'The workspace owner cannot be removed.');
      if (!(await accounts.workspaces.members(slug)).some((m) => m.userId === userId))
        throw new ManagementError(404, 'That person is not a member.');
      await accounts.workspaces.setRole(slug, userId, 'NONE');
      // What they reached through this project ends with their role: the apps they authorized for
      // it (their OAuth grants) are revoked; their personal keys reach only projects they have a role on.
      const grants = await accounts.oauthGrants.revokeForProject(userId, slug);
      await note(actor, project.workspace, 'member.removed', `user:${(await accounts.users.get(userId))?.email ?? userId}`, {
        project: slug,
        oauth_grants_revoked: String(grants),
      });
    },

    async bots(actor, workspace) {
      await ownerOf(actor, workspace, 'manage service accounts');
      const bots = await accounts.bots.listForWorkspace(workspace);
      const rows = await Promise.all(
        bots.map(async (b) => {
          const key = await accounts.keys.getById(b.keyId);
          return { id: b.id, name: b.name, grants: b.grants, keyPrefix: key && !key.revoked ? key.prefix : null, createdAt: b.createdAt };
        }),
      );
      return { bots: rows, projects: await accounts.workspaces.projectsOf(workspace), canManage: true };
    },

    async createBot(actor, workspace, name) {
      await ownerOf(actor, workspace, 'create service accounts');
      const botNameProblem = nameProblem('service account', name, MAX_NAME);
      if (botNameProblem) throw new ManagementError(400, botNameProblem, 'name');
      const { bot, key } = await accounts.bots.create({ workspace, name }).catch(full);
      await note(actor, workspace, 'service_account.created', `service_account:${bot.id} ("${bot.name}")`, { key: key.record.prefix });
      return { id: bot.id, bot: bot.name, key: key.key };
    },

    async grantBot(actor, workspace, id, project, level) {
      await ownerOf(actor, workspace, 'grant service accounts');
      const bot = await accounts.bots.get(id);
      if (!bot || bot.workspace !== workspace) throw new ManagementError(404, 'There is no such service account in this workspace.');
      if (!(await accounts.workspaces.projectsOf(workspace)).includes(project))
        throw new ManagementError(404, `There is no project ${project} in this workspace.`);
      if (!isKeyLevel(level)) throw new ManagementError(400, 'Choose VIEWER, EDITOR or ADMIN.', 'level');
      await accounts.bots.grant(id, project, level as KeyLevel);
      await note(actor, workspace, 'service_account.granted', `service_account:${id} ("${bot.name}")`, { project, level });
    },

    async rotateBot(actor, workspace, id) {
      await ownerOf(actor, workspace, 'rotate service account keys');
      const bot = await accounts.bots.get(id);
      if (!bot || bot.workspace !== workspace) throw new ManagementError(404, 'There is no such service account in this workspace.');
      const issued = await accounts.bots.rotateKey(id).catch(full);
      await note(actor, workspace, 'service_account.key_rotated', `service_account:${id} ("${bot.name}")`, { key: issued.record.prefix });
      return { id: bot.id, bot: bot.name, key: issued.key };
    },

    async revokeBot(actor, workspace, id) {
      await ownerOf(actor, workspace, 'revoke service accounts');
      const bot = await accounts.bots.get(id);
      if (!bot || bot.workspace !== workspace) throw new ManagementError(404, 'There is no such service account in this workspace.');
      await accounts.bots.revoke(id);
      await note(actor, workspace, 'service_account.revoked', `service_account:${id} ("${bot.name}")`);
    },

    async usage(actor, workspace) {
      const ws = await ownerOf(actor, workspace, 'see usage');
      const limits = planLimits(ws.plan);
      const t = now();
      const [minute, monthly, counts] = await Promise.all([
        deps.redis.get(K.rateMinute(workspace, WINDOWS.minute(t))),
        deps.redis.get(K.rateMonth(workspace, WINDOWS.month(t))),
        deps.redis.hgetall(K.usage(workspace, WINDOWS.month(t))),
      ]);
      const perKey: Usage['perKey'] = [];
      const perTool: Usage['perTool'] = [];
      for (const [field, value] of Object.entries(counts)) {
        const count = Number(value);
        const [kind, id = ''] = splitField(field);
        if (kind === 'tool') perTool.push({ tool: id, count });
        else if (kind === 'key') {
          const key = await accounts.keys.getById(id);
          // A member's personal key is named by its person, not by the tool that made it.
          const person = key?.kind === 'user_key' ? (await accounts.users.get(key.userId))?.email : undefined;
          perKey.push({
            name: person ? `${person} (personal key)` : (key?.name ?? 'deleted key'),
            prefix: key?.prefix ?? id,
            project: key?.project ?? '',
            count,
          });
        } else if (kind === 'user') {
          const user = await accounts.users.get(id);
          perKey.push({ name: user ? `${user.email} (OAuth)` : 'former member (OAuth)', prefix: '', project: '', count });
        }
      }
      const byCount = (a: { count: number }, b: { count: number }) => b.count - a.count;
      return {
        minute: { used: Number(minute ?? 0), limit: limits.requestsPerMinute },
        month: { used: Number(monthly ?? 0), quota: limits.monthlyQueries },
        perKey: perKey.sort(byCount),
        perTool: perTool.sort((a, b) => byCount(a, b) || a.tool.localeCompare(b.tool)),
      };
    },

    async changePassword(actor, current, next) {
      const userId = personOf(actor, 'change a password');
      const user = await accounts.users.get(userId);
      if (!user || !(await accounts.users.verifyPassword(user.email, current)))
        throw new ManagementError(400, 'The current password is not right.', 'current');
      try {
        checkPassword(next);
      } catch (err) {
        if (!(err instanceof AccountError)) throw err;
        throw new ManagementError(400, `${err.message.charAt(0).toUpperCase()}${err.message.slice(1)}.`, 'password');
      }
      await accounts.users.setPassword(user.id, next);
      // docs/auth-service.md "What a new password ends": reset links (the new epoch), personal keys
      // and apps' grants; the caller ends the other browser sessions.
      const ended = await endPersonalCredentials(accounts, user.id);
      await note(actor, user.workspace, 'password.changed', `user:${user.email}`, {
        personal_keys_revoked: String(ended.keys),
        oauth_apps_revoked: String(ended.apps),
      });
    },

    sweepKeyExpiries() {
      return sweepKeyExpiries({ accounts, redis: deps.redis, notices, now });
    },

    async accessRequested(request) {
      const mailed = request.notifyAdmins && deps.mailer?.enabled === true;
      if (mailed) notify(notices.accessRequested(request));
      return { mailed };
    },

    async reportLeak(value, from) {
      const key = await accounts.keys.verify(value).catch(() => null);
      if (!key) return;
      await accounts.keys.revoke(key.id);
      const workspace = key.workspace || (key.userId ? (await accounts.users.get(key.userId))?.workspace : undefined);
      if (workspace)
        await accounts.audit.record({
          workspace,
          actor: 'leak report',
          action: 'key.reported',
          target: keyTarget(key),
          source: from.source,
          requestId: from.requestId,
        });
    },

    async audit(actor, workspace, page) {
      await ownerOf(actor, workspace, 'read the audit log');
      const query = parseAuditQuery(page);
      const r = await accounts.audit.page(workspace, query);
      return {
        entries: r.entries.map((e) => ({
          id: e.id,
          at: e.at,
          actor: e.actor,
          action: e.action,
          target: e.target,
          source: e.source,
          requestId: e.requestId,
        })),
        next: r.next,
        actions: AUDIT_ACTIONS,
      };
    },

    async auditExport(actor, workspace) {
      await ownerOf(actor, workspace, 'export the audit log');
      return accounts.audit.exportChunks(workspace);
    },

    async account(actor) {
      const userId = personOf(actor, 'have an account page');
      const keys = (await accounts.keys.listForUser(userId)).filter((k) => !k.revoked && (k.expiresAt === null || k.expiresAt > now()));
      const user = await accounts.users.get(userId);
      return {
        email: actor.label,
        emailVerified: user?.emailVerifiedAt ? true : false,
        apps: (await accounts.oauthGrants.listForUser(userId)).map((g) => ({
          id: g.id,
          client: g.clientName,
          clientId: g.clientId,
          // The level approved on the consent page, as the gateway reads it (docs/auth-service.md "Scopes").
          projects: g.projects.map((p) => `${p.slug} (${approvedLevel(p.scope)})`),
          createdAt: g.createdAt,
          expiresAt: g.expiresAt,
        })),
        personalKeys: keys.map((k) => ({
          id: k.id,
          client: k.clientId || k.name,
          prefix: k.prefix,
          createdAt: k.createdAt,
          expiresAt: k.expiresAt,
          lastUsedAt: k.lastUsedAt,
        })),
      };
    },

    async myRequests(actor) {
      const userId = personOf(actor, 'follow your access requests');
      return (await accounts.accessRequests.listForUser(userId)).map((r) => ({
        id: r.id,
        project: r.project,
        level: r.requested_level,
        status: r.status,
        grantedLevel: r.granted_level,
        createdAt: Date.parse(r.created_at),
        decidedAt: r.decided_at ? Date.parse(r.decided_at) : null,
      }));
    },

    async revokeApp(actor, id) {
      const userId = personOf(actor, 'revoke authorized apps');
      const grant = await accounts.oauthGrants.get(id);
      if (!grant || grant.accountId !== userId) throw new ManagementError(404, 'There is no such app authorized by you.');
      await accounts.oauthGrants.revoke(id);
      const user = await accounts.users.get(userId);
      if (user)
        await note(actor, user.workspace, 'oauth_app.revoked', `client:${grant.clientId} ("${grant.clientName}")`, {
          projects: grant.projects.map((p) => p.slug).join(' '),
        });
    },

    async revokePersonalKey(actor, id) {
      const userId = personOf(actor, 'revoke personal keys');
      const key = await accounts.keys.getById(id);
      if (!key || key.userId !== userId || key.kind !== 'user_key')
        throw new ManagementError(404, 'There is no such personal key of yours.');
      await accounts.keys.revoke(id);
      const user = await accounts.users.get(userId);
      if (user) await note(actor, user.workspace, 'personal_key.revoked', keyTarget(key));
    },
  };
}

/** A usage hash field (`key:<id>`, `user:<id>`, `tool:<name>`) as its kind and name. */
function splitField(field: string): [string, string] {
  const at = field.indexOf(':');
  return at < 0 ? [field, ''] : [field.slice(0, at), field.slice(at + 1)];
}
