import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Plan, Role } from '@svc/policy';
import { runScript, script } from '@svc/limits';
import { agentsByDefault, isRole } from '@svc/policy';
import { addToSet, setInHash } from './collection-limits.ts';
import type { StoreContext } from './context.ts';
import { invalidate } from './context.ts';
import { AccountError, assertSlug } from './errors.ts';
import { INVALIDATES, K } from './keys.ts';
import type { Project, ProjectAccess, Workspace } from './types.ts';

/** How long a claim to make a workspace's project holds (the making takes milliseconds; a claimer that died frees it). */
const PROJECT_CLAIM_MS = 10_000;
/** How long a request waits for the project another request claimed the making of. */
const PROJECT_WAIT_MS = 5_000;
const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 200;
/** KEYS[1] a claim; ARGV[1] the claimer's token: deleted only if still its own. */
const RELEASE = script(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`);

/** Workspaces (teams), their projects, and users' roles on those projects. */
export class WorkspaceStore {
  private readonly ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.ctx = ctx;
  }

  /** Creates a workspace; refuses a taken slug. */
  async create(input: { slug: string; owner: string; plan?: Plan; agents?: boolean }): Promise<Workspace> {
    assertSlug('workspace', input.slug);
    const plan = input.plan ?? 'FREE';
    const ws: Workspace = {
      slug: input.slug,
      plan,
      agents: input.agents ?? agentsByDefault(plan),
      owner: input.owner,
      createdAt: this.ctx.now(),
    };
    const created = await this.ctx.redis.hsetnx(K.workspace(ws.slug), 'slug', ws.slug);
    if (!created) throw new AccountError('conflict', `workspace ${ws.slug} already exists`);
    await this.ctx.redis.hset(K.workspace(ws.slug), {
      plan,
      agents: ws.agents ? '1' : '0',
      owner: ws.owner,
      createdAt: String(ws.createdAt),
    });
    await this.ctx.redis.sadd(K.userWorkspaces(ws.owner), ws.slug);
    return ws;
  }

  /** The personal workspace of a new user, named after the email's local part (made unique). */
  async createPersonal(userId: string, email: string): Promise<string> {
    const base =
      (email.split('@')[0] ?? 'user')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 40) || 'user';
    const stem = base.length < 2 ? `${base}-ws` : base;
    for (let n = 1; n < 1000; n++) {
      const slug = n === 1 ? stem : `${stem}-${n}`;
      try {
        await this.create({ slug, owner: userId });
        return slug;
      } catch (err) {
        if (!(err instanceof AccountError && err.code === 'conflict')) throw err;
      }
    }
    throw new AccountError('conflict', `no free workspace slug for ${email}`);
  }

  async get(slug: string): Promise<Workspace | null> {
    const h = await this.ctx.redis.hgetall(K.workspace(slug));
    if (!h['slug']) return null;
    return {
      slug: h['slug'],
      plan: (h['plan'] ?? 'FREE') as Plan,
      agents: h['agents'] === '1',
      owner: h['owner'] ?? '',
      createdAt: Number(h['createdAt']),
    };
  }

  async require(slug: string): Promise<Workspace> {
    const ws = await this.get(slug);
    if (!ws) throw new AccountError('not_found', `no workspace ${slug}`);
    return ws;
  }

  /** Changes a workspace's plan (and Agents entitlement); takes effect on every gateway at once. */
  async setPlan(slug: string, plan: Plan, agents?: boolean): Promise<Workspace> {
    const ws = await this.require(slug);
    const next = agents ?? (ws.plan === plan ? ws.agents : agentsByDefault(plan));
    await this.ctx.redis.hset(K.workspace(slug), { plan, agents: next ? '1' : '0' });
    await invalidate(this.ctx, INVALIDATES.workspace(slug));
    return { ...ws, plan, agents: next };
  }

  async createProject(input: { slug: string; workspace: string; name?: string }): Promise<Project> {
    assertSlug('project', input.slug);
    await this.require(input.workspace);
    const created = await this.ctx.redis.hsetnx(K.project(input.slug), 'slug', input.slug);
    if (!created) throw new AccountError('conflict', `project ${input.slug} already exists`);
    // The slug is this caller's now; past the workspace's limit it is given back.
    await addToSet(this.ctx, 'projectsPerWorkspace', K.workspaceProjects(input.workspace), input.slug).catch(async (err: unknown) => {
      await this.ctx.redis.del(K.project(input.slug));
      throw err;
    });
    const project: Project = { slug: input.slug, name: input.name ?? input.slug, workspace: input.workspace, createdAt: this.ctx.now() };
    await this.ctx.redis.hset(K.project(project.slug), {
      name: project.name,
      workspace: project.workspace,
      createdAt: String(project.createdAt),
    });
    // Gateways may hold a cached "no such project" for this slug, and the workspace's team
    // endpoint answers with its list of projects.
    await invalidate(this.ctx, INVALIDATES.project(project.slug), INVALIDATES.projectsOf(project.workspace));
    return project;
  }

  /**
   * Creates a project whose slug is made from `stem` (slugStem of its name, usually): `stem`,
   * else `stem-2`, `stem-3`, ... since slugs are global and another workspace may hold one.
   */
  async createProjectWithFreeSlug(input: { stem: string; workspace: string; name: string }): Promise<Project> {
    for (let n = 1; n < 100; n++) {
      try {
        return await this.createProject({
          slug: n === 1 ? input.stem : `${input.stem}-${n}`,
          workspace: input.workspace,
          name: input.name,
        });
      } catch (err) {
        if (!(err instanceof AccountError && err.code === 'conflict')) throw err;
      }
    }
    throw new AccountError('conflict', `no free project slug from ${input.stem}`);
  }

  /** The workspace's project named `name`; without a name, its first project (by slug). */
  async projectNamed(workspace: string, name?: string): Promise<string | null> {
    const slugs = await this.projectsOf(workspace);
    if (name === undefined) return slugs[0] ?? null;
    for (const slug of slugs) if ((await this.getProject(slug))?.name === name) return slug;
    return null;
  }

  /**
   * The workspace's project named `name` (none: its first project, made as `defaultName`), made
   * once with a slug from `stem` however many requests ask at once (a consent sent twice): the
   * making is claimed with one SET NX (docs/security.md "Single-use values") and looked for again
   * under the claim; the other requests wait for the project it makes and answer it. Null when it
   * is still not there after PROJECT_WAIT_MS (the caller asks to send again).
   */
  async ensureProject(input: { workspace: string; name?: string; stem: string; defaultName: string }): Promise<string | null> {
    const { redis } = this.ctx;
    const which = input.name === undefined ? 'first' : `named:${createHash('sha256').update(input.name).digest('base64url')}`;
    const claim = K.workspaceProjectClaim(input.workspace, which);
    const deadline = performance.now() + PROJECT_WAIT_MS;
    for (let pause = FIRST_POLL_MS; ; pause = Math.min(pause * 2, MAX_POLL_MS)) {
      const found = await this.projectNamed(input.workspace, input.name);
      if (found) return found;
      const token = randomBytes(16).toString('base64url');
      if ((await redis.set(claim, token, 'PX', PROJECT_CLAIM_MS, 'NX')) === 'OK') {
        try {
          // A claimer that released just before made it: found now, never made twice.
          const made = await this.projectNamed(input.workspace, input.name);
          if (made) return made;
          const name = input.name ?? input.defaultName;
          return (await this.createProjectWithFreeSlug({ stem: input.stem, workspace: input.workspace, name })).slug;
        } finally {
          await runScript(redis, RELEASE, [claim], [token]);
        }
      }
      if (performance.now() > deadline) return null;
      await delay(pause);
    }
  }

  async getProject(slug: string): Promise<Project | null> {
    const h = await this.ctx.redis.hgetall(K.project(slug));
    if (!h['slug']) return null;
    return { slug: h['slug'], name: h['name'] ?? h['slug'], workspace: h['workspace'] ?? '', createdAt: Number(h['createdAt']) };
  }

  async requireProject(slug: string): Promise<Project> {
    const p = await this.getProject(slug);
    if (!p) throw new AccountError('not_found', `no project ${slug}`);
    return p;
  }

  async projectsOf(workspace: string): Promise<string[]> {
    return (await this.ctx.redis.smembers(K.workspaceProjects(workspace))).sort();
  }

  /** The workspaces a user owns, where they may create projects. */
  async ownedBy(userId: string): Promise<string[]> {
    const owned: string[] = [];
    for (const slug of await this.ctx.redis.smembers(K.userWorkspaces(userId))) {
      if ((await this.get(slug))?.owner === userId) owned.push(slug);
    }
    return owned.sort();
  }

  /** The users given a role on a project (not its workspace's owner, who is ADMIN without one). */
  async members(project: string): Promise<{ userId: string; role: Role }[]> {
    const roles = await this.ctx.redis.hgetall(K.projectRoles(project));
    return Object.entries(roles)
      .filter((entry): entry is [string, Role] => isRole(entry[1]))
      .map(([userId, role]) => ({ userId, role }))
      .sort((a, b) => a.userId.localeCompare(b.userId));
  }

  /** Sets a user's role on a project (NONE removes it). */
  async setRole(project: string, userId: string, role: Role): Promise<void> {
    await this.requireProject(project);
    if (role === 'NONE') {
      await this.ctx.redis.hdel(K.projectRoles(project), userId);
      await this.ctx.redis.srem(K.userProjects(userId), project);
    } else {
      await setInHash(this.ctx, 'membersPerProject', K.projectRoles(project), userId, role);
      await this.ctx.redis.sadd(K.userProjects(userId), project);
    }
    await invalidate(this.ctx, INVALIDATES.user(userId));
  }

  /** A user's role on a project: ADMIN for the owner of its workspace, else the role set, else NONE. */
  async roleOf(userId: string, project: Project): Promise<Role> {
    const [owner, role] = await Promise.all([
      this.ctx.redis.hget(K.workspace(project.workspace), 'owner'),
      this.ctx.redis.hget(K.projectRoles(project.slug), userId),
    ]);
    if (owner === userId) return 'ADMIN';
    return isRole(role) ? role : 'NONE';
  }

  /** Every project a user can access (role above NONE), with the role. */
  async accessibleProjects(userId: string): Promise<ProjectAccess[]> {
    const owned = await this.ctx.redis.smembers(K.userWorkspaces(userId));
    const slugs = new Set(await this.ctx.redis.smembers(K.userProjects(userId)));
    for (const ws of owned) {
      const w = await this.get(ws);
      if (w?.owner === userId) for (const p of await this.projectsOf(ws)) slugs.add(p);
    }
    const out: ProjectAccess[] = [];
    for (const slug of [...slugs].sort()) {
      const project = await this.getProject(slug);
      if (!project) continue;
      const role = await this.roleOf(userId, project);
      if (role !== 'NONE') out.push({ project, role });
    }
    return out;
  }
}

/** A slug stem for a project name: lower-case letters and digits joined by single dashes (may be short). */
export function slugStem(name: string): string {
  return name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50)
    .replace(/-+$/, '');
}
