/**
 * GET /api/v1/me and GET /api/v1/projects: who a credential is and which projects it reaches, for
 * the CLI (`svc whoami`, `svc projects`) and scripts. DELETE /api/v1/me/key: a key revokes itself
 * (`svc logout`; key hygiene "revoke old ones"); every replica refuses it within a second.
 * Any API key; counted against the requests per minute of the credential's own workspace (a
 * personal key: the user's personal workspace).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Accounts, ApiKeyRecord } from '@svc/accounts';
import { claimedKind } from '@svc/credentials';
import { SvcError, asSvcError } from '@svc/errors';
import type { Plan } from '@svc/policy';
import type { ResolvedCaller } from '../auth/caller.ts';
import { credentialFrom } from '../auth/credentials-from-request.ts';
import type { Headers } from '../http/respond.ts';
import { sendJson, sendRestError } from '../http/respond.ts';
import type { Admit } from '../ratelimit/admit.ts';

export interface AccountRoutesDeps {
  accounts: Accounts;
  admit: Admit;
  corsHeaders: (req: IncomingMessage) => Headers;
}

interface Identity {
  record: ApiKeyRecord;
  workspace: string;
  plan: Plan;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function createAccountRoutes(deps: AccountRoutesDeps) {
  async function identify(req: IncomingMessage): Promise<Identity> {
    const presented = credentialFrom(req.headers);
    if (!presented || !presented.value) throw new SvcError('missing_authentication');
    const claimed = claimedKind(presented.value);
    if (claimed === 'access_token' || claimed === 'refresh_token') {
      throw new SvcError('invalid_token', {
        message: 'Invalid OAuth token',
        remedy: 'OAuth access tokens are bound to one project: call /mcp/<project_slug> with them.',
      });
    }
    let record: ApiKeyRecord | null;
    try {
      record = await deps.accounts.keys.verify(presented.value);
    } catch (err) {
      throw new SvcError('service_unavailable', {
        message: 'Service temporarily unavailable: the credential store cannot be reached',
        detail: String(err),
      });
    }
    if (!record) throw new SvcError('invalid_api_key');
    let workspace = record.workspace;
    if (record.kind === 'user_key') workspace = (await deps.accounts.users.get(record.userId))?.workspace ?? '';
    const ws = await deps.accounts.workspaces.get(workspace);
    return { record, workspace, plan: ws?.plan ?? 'FREE' };
  }

  async function projectsOf(id: Identity) {
    const r = id.record;
    if (r.kind === 'user_key') {
      return (await deps.accounts.workspaces.accessibleProjects(r.userId)).map((a) => ({
        slug: a.project.slug,
        workspace: a.project.workspace,
        role: a.role,
      }));
    }
    if (r.kind === 'bot_key') {
      const bot = await deps.accounts.bots.get(r.botId);
      return Object.entries(bot?.grants ?? {}).map(([slug, role]) => ({ slug, workspace: r.workspace, role }));
    }
    if (r.kind === 'legacy_team_key') {
      return (await deps.accounts.workspaces.projectsOf(r.workspace)).map((slug) => ({
        slug,
        workspace: r.workspace,
        role: r.level || 'EDITOR',
      }));
    }
    return [{ slug: r.project, workspace: r.workspace, role: r.level || 'EDITOR' }];
  }

  async function describe(id: Identity) {
    const r = id.record;
    const user = r.userId ? await deps.accounts.users.get(r.userId) : null;
    return {
      key: { id: r.id, kind: r.kind, name: r.name, prefix: r.prefix, expires_at: iso(r.expiresAt), created_at: iso(r.createdAt) },
      user: user ? { id: user.id, email: user.email } : null,
      workspace: id.workspace,
      plan: id.plan,
    };
  }

  function route(work: (id: Identity) => Promise<unknown>) {
    return async (req: IncomingMessage, res: ServerResponse) => {
      let headers = deps.corsHeaders(req);
      try {
        const id = await identify(req);
        const caller = { workspace: id.workspace, plan: id.plan, legacy: id.record.kind.startsWith('legacy_') } as ResolvedCaller;
        headers = { ...headers, ...(await deps.admit(caller, false)) };
        sendJson(res, 200, await work(id), headers);
      } catch (err) {
        const e = asSvcError(err);
        sendRestError(res, e, { ...headers, ...(e.status === 401 ? { 'WWW-Authenticate': 'Bearer realm="svc"' } : {}) });
      }
    };
  }

  return {
    me: route(describe),
    projects: route(async (id) => ({ projects: await projectsOf(id) })),
    revokeSelf: route(async (id) => {
      const rec = await deps.accounts.keys.revoke(id.record.id);
      return { revoked: { id: rec.id, kind: rec.kind, prefix: rec.prefix } };
    }),
  };
}
