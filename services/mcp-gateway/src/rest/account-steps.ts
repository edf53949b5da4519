/**
 * The account routes, where a credential speaks for itself (docs/contract.md "Hosts and
 * endpoints"): GET /api/v1/me and GET /api/v1/projects for `svc whoami` / `svc projects`, and
 * DELETE /api/v1/me/key, with which a key revokes itself (`svc logout`): every replica refuses it
 * within a second. They run on the same pipeline as the tools (authenticate with the cache,
 * admit against the credential's own workspace); DELETE /api/v1/me/key is never refused for a limit.
 */
import type { Accounts, ApiKeyRecord } from '@svc/accounts';
import { SvcError } from '@svc/errors';
import { KEY_DEFAULTS } from '@svc/management';
import type { Step } from '../pipeline/exchange.ts';
import { callerOf } from '../pipeline/exchange.ts';
import { respond } from '../pipeline/run.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function accountSteps(accounts: Accounts) {
  async function recordOf(keyId: string): Promise<ApiKeyRecord> {
    const rec = await accounts.keys.getById(keyId);
    // Revoked between authentication and now: the same answer as a revoked key.
    if (!rec || rec.revoked) throw new SvcError('invalid_api_key', { detail: `key ${keyId} gone` });
    return rec;
  }

  async function projectsOf(r: ApiKeyRecord) {
    if (r.kind === 'user_key') {
      return (await accounts.workspaces.accessibleProjects(r.userId)).map((a) => ({
        slug: a.project.slug,
        workspace: a.project.workspace,
        role: a.role,
      }));
    }
    if (r.kind === 'bot_key') {
      const bot = await accounts.bots.get(r.botId);
      return Object.entries(bot?.grants ?? {}).map(([slug, role]) => ({ slug, workspace: r.workspace, role }));
    }
    if (r.kind === 'legacy_team_key') {
      return (await accounts.workspaces.projectsOf(r.workspace)).map((slug) => ({
        slug,
        workspace: r.workspace,
        role: r.level || KEY_DEFAULTS.unleveled,
      }));
    }
    return [{ slug: r.project, workspace: r.workspace, role: r.level || KEY_DEFAULTS.unleveled }];
  }

  const me: Step = async function me(ex) {
    const caller = callerOf(ex);
    const r = await recordOf(caller.session);
    const user = r.userId ? await accounts.users.get(r.userId) : null;
    respond(ex, {
      key: { id: r.id, kind: r.kind, name: r.name, prefix: r.prefix, expires_at: iso(r.expiresAt), created_at: iso(r.createdAt) },
      user: user ? { id: user.id, email: user.email } : null,
      workspace: caller.workspace,
      plan: caller.plan,
    });
  };

  const projects: Step = async function projects(ex) {
    respond(ex, { projects: await projectsOf(await recordOf(callerOf(ex).session)) });
  };

  const revokeSelf: Step = async function revokeSelf(ex) {
    const rec = await accounts.keys.revoke(callerOf(ex).session);
    respond(ex, { revoked: { id: rec.id, kind: rec.kind, prefix: rec.prefix } });
  };

  return { me, projects, revokeSelf };
}
