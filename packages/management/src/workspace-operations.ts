/**
 * A workspace's projects, service accounts, usage and audit log (docs/management.md, docs/audit.md):
 * the owner's, and the projects each actor reaches.
 */
import { AUDIT_ACTIONS, AccountError, K, nameProblem, slugStem, WINDOWS, type Accounts } from '@svc/accounts';
import { isKeyLevel, planLimits, type KeyLevel } from '@svc/policy';
import { parseAuditFilter, parseAuditQuery } from './audit-query.ts';
import { MAX_NAME, type ManagementContext } from './context.ts';
import { sweepKeyExpiries } from './expiry.ts';
import type { Management } from './management.ts';
import { overlapSecondsOf } from './overlap.ts';
import { ManagementError, type Usage } from './types.ts';
import { parseUsageDays, readDayCounts } from './usage-history.ts';

/** The operations of this group, on the shared context (each is described on Management). */
export function workspaceOperations(
  ctx: ManagementContext,
): Pick<
  Management,
  | 'projectsOf'
  | 'workspacesOf'
  | 'createProject'
  | 'serviceAccounts'
  | 'createServiceAccount'
  | 'grantServiceAccount'
  | 'rotateServiceAccount'
  | 'revokeServiceAccount'
  | 'usage'
  | 'audit'
  | 'auditExport'
  | 'sweepKeyExpiries'
> {
  const { accounts, deps, now, notices, note, full, ownerOf } = ctx;
  return {
    async projectsOf(actor) {
      if (actor.kind === 'project_key') {
        const p = await accounts.workspaces.getProject(actor.project);
        return p ? [{ slug: p.slug, name: p.name, workspace: p.workspace, role: actor.level }] : [];
      }
      if (actor.kind === 'operator') return [];
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

    async serviceAccounts(actor, workspace) {
      await ownerOf(actor, workspace, 'manage service accounts');
      const bots = await accounts.bots.listForWorkspace(workspace);
      const rows = await Promise.all(
        bots.map(async (b) => {
          const key = await accounts.keys.getById(b.keyId);
          return {
            id: b.id,
            name: b.name,
            grants: b.grants,
            keyPrefix: key && !key.revoked ? key.prefix : null,
            createdAt: b.createdAt,
            revoked: b.revoked,
          };
        }),
      );
      return { bots: rows, projects: await accounts.workspaces.projectsOf(workspace), canManage: true };
    },

    async createServiceAccount(actor, workspace, name) {
      await ownerOf(actor, workspace, 'create service accounts');
      const botNameProblem = nameProblem('service account', name, MAX_NAME);
      if (botNameProblem) throw new ManagementError(400, botNameProblem, 'name');
      const { bot, key } = await accounts.bots.create({ workspace, name }).catch(full);
      await note(actor, workspace, 'service_account.created', `service_account:${bot.id} ("${bot.name}")`, { key: key.record.prefix });
      return { id: bot.id, bot: bot.name, key: key.key };
    },

    async grantServiceAccount(actor, workspace, id, project, level) {
      await ownerOf(actor, workspace, 'grant service accounts');
      const bot = await accounts.bots.get(id);
      if (!bot || bot.workspace !== workspace) throw new ManagementError(404, 'There is no such service account in this workspace.');
      if (!(await accounts.workspaces.projectsOf(workspace)).includes(project))
        throw new ManagementError(404, `There is no project ${project} in this workspace.`);
      if (!isKeyLevel(level)) throw new ManagementError(400, 'Choose VIEWER, EDITOR or ADMIN.', 'level');
      await accounts.bots.grant(id, project, level as KeyLevel);
      await note(actor, workspace, 'service_account.granted', `service_account:${id} ("${bot.name}")`, { project, level });
    },

    async rotateServiceAccount(actor, workspace, id, overlap) {
      await ownerOf(actor, workspace, 'rotate service account keys');
      const bot = await accounts.bots.get(id);
      if (!bot || bot.workspace !== workspace) throw new ManagementError(404, 'There is no such service account in this workspace.');
      const overlapSeconds = overlapSecondsOf(overlap);
      // docs/management.md "Service accounts": a revoked service account stays revoked.
      if (bot.revoked)
        throw new ManagementError(409, `The service account ${bot.name} is revoked: it gets no new key. Create a new one instead.`);
      const issued = await accounts.bots.rotateKey(id, overlapSeconds).catch((err: unknown) => {
        if (err instanceof AccountError && err.code === 'conflict')
          throw new ManagementError(409, `The service account ${bot.name} is revoked: it gets no new key. Create a new one instead.`);
        throw err;
      });
      await note(actor, workspace, 'service_account.key_rotated', `service_account:${id} ("${bot.name}")`, {
        key: issued.record.prefix,
        old_key_until: issued.oldKeyUntil === null ? 'now' : new Date(issued.oldKeyUntil).toISOString(),
      });
      return { id: bot.id, bot: bot.name, key: issued.key, oldKeyUntil: issued.oldKeyUntil };
    },

    async revokeServiceAccount(actor, workspace, id) {
      await ownerOf(actor, workspace, 'revoke service accounts');
      const bot = await accounts.bots.get(id);
      if (!bot || bot.workspace !== workspace) throw new ManagementError(404, 'There is no such service account in this workspace.');
      await accounts.bots.revoke(id);
      await note(actor, workspace, 'service_account.revoked', `service_account:${id} ("${bot.name}")`);
    },

    async usage(actor, workspace, query = {}) {
      const ws = await ownerOf(actor, workspace, 'see usage');
      const days = parseUsageDays(query.days);
      const limits = planLimits(ws.plan);
      const t = now();
      const [minute, monthly, counts, history] = await Promise.all([
        deps.redis.get(K.rateMinute(workspace, WINDOWS.minute(t))),
        deps.redis.get(K.rateMonth(workspace, WINDOWS.month(t))),
        deps.redis.hgetall(K.usage(workspace, WINDOWS.month(t))),
        readDayCounts(deps.redis, workspace, t, days),
      ]);
      const names = new Map<string, Promise<Credential>>();
      const credential = (kind: string, id: string) => {
        let named = names.get(`${kind}:${id}`);
        if (!named) names.set(`${kind}:${id}`, (named = nameCredential(accounts, kind, id)));
        return named;
      };
      const perKey: Usage['perKey'] = [];
      const perTool: Usage['perTool'] = [];
      for (const [field, value] of Object.entries(counts)) {
        const count = Number(value);
        const [kind, id = ''] = splitField(field);
        if (kind === 'tool') perTool.push({ tool: id, count });
        else if (kind === 'key' || kind === 'user') perKey.push({ ...(await credential(kind, id)), count });
      }
      const daily: Usage['daily'] = { days: history.days, requests: history.days.map(() => 0), perKey: [], perTool: [] };
      for (const [field, dayCounts] of history.fields) {
        const [kind, id = ''] = splitField(field);
        if (kind === 'tool') daily.perTool.push({ tool: id, counts: dayCounts });
        else if (kind === 'key' || kind === 'user') {
          daily.perKey.push({ ...(await credential(kind, id)), counts: dayCounts });
          // Each admitted request counts once for its credential: their sum is the day's requests.
          dayCounts.forEach((n, i) => (daily.requests[i] = (daily.requests[i] ?? 0) + n));
        }
      }
      const byCount = (a: { count: number }, b: { count: number }) => b.count - a.count;
      const sum = (c: number[]) => c.reduce((a, b) => a + b, 0);
      const byTotal = (a: { counts: number[] }, b: { counts: number[] }) => sum(b.counts) - sum(a.counts);
      return {
        minute: { used: Number(minute ?? 0), limit: limits.requestsPerMinute },
        month: { used: Number(monthly ?? 0), quota: limits.monthlyQueries },
        perKey: perKey.sort(byCount),
        perTool: perTool.sort((a, b) => byCount(a, b) || a.tool.localeCompare(b.tool)),
        daily: {
          ...daily,
          perKey: daily.perKey.sort(byTotal),
          perTool: daily.perTool.sort((a, b) => byTotal(a, b) || a.tool.localeCompare(b.tool)),
        },
      };
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

    async auditExport(actor, workspace, filter = {}) {
      await ownerOf(actor, workspace, 'export the audit log');
      return accounts.audit.exportChunks(workspace, parseAuditFilter(filter));
    },

    sweepKeyExpiries() {
      return sweepKeyExpiries({ accounts, redis: deps.redis, notices, now });
    },
  };
}

type Credential = { name: string; prefix: string; project: string };

/** A usage field's credential as a row names it: a key by name and prefix, a person (OAuth) by email. */
async function nameCredential(accounts: Accounts, kind: string, id: string): Promise<Credential> {
  if (kind === 'user') {
    const user = await accounts.users.get(id);
    return { name: user ? `${user.email} (OAuth)` : 'former member (OAuth)', prefix: '', project: '' };
  }
  const key = await accounts.keys.getById(id);
  // A member's personal key is named by its person, not by the tool that made it.
  const person = key?.kind === 'user_key' ? (await accounts.users.get(key.userId))?.email : undefined;
  return {
    name: person ? `${person} (personal key)` : (key?.name ?? 'deleted key'),
    prefix: key?.prefix ?? id,
    project: key?.project ?? '',
  };
}

/** A usage hash field (`key:<id>`, `user:<id>`, `tool:<name>`) as its kind and name. */
function splitField(field: string): [string, string] {
  const at = field.indexOf(':');
  return at < 0 ? [field, ''] : [field.slice(0, at), field.slice(at + 1)];
}
