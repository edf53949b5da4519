/**
 * What every group of management operations shares (docs/management.md "Who may do what"): the
 * stores, the clock, the audit note, and the checks of who the actor is where they act.
 */
import { AccountError, type Accounts, type AuditAction, type Project, type Redis } from '@svc/accounts';
import type { Mailer } from '@svc/mail';
import type { KeyLevel, Role } from '@svc/policy';
import type { ScimDirectory, ScimTokens, SsoSettingsService } from '@svc/sso';
import type { Upstreams } from '@svc/upstreams';
import type { WebhookStore } from '@svc/webhooks';
import { auditPartiesOf } from './audit-actor.ts';
import { createNotices } from './notices.ts';
import { ManagementError, type Actor } from './types.ts';

/** What createManagement is given. */
export interface ManagementDeps {
  redis: Redis;
  now?: () => number;
  mailer?: Mailer;
  authUrl?: string;
  /** The gateway's public URL: the MCP endpoints a token's resource names. */
  baseUrl?: string;
  onNoticeError?: (err: unknown) => void;
  /**
   * A workspace's single sign-on settings (@svc/sso); without it the SSO operations answer 404.
   * The gateway and svc-admin give one without a discovery check (no outbound requests).
   */
  sso?: SsoSettingsService;
  /** The webhook endpoints' store (docs/webhooks.md); without it the webhook operations answer 404. */
  webhooks?: WebhookStore;
  /** A project's upstream MCP servers (docs/upstream-servers.md); without it those operations answer 404. */
  upstreams?: Upstreams;
  /** A workspace's SCIM tokens and directory (docs/auth-service.md "SCIM provisioning"); without it those operations answer 404. */
  scim?: { tokens: ScimTokens; directory: ScimDirectory };
  /**
   * Ends every browser and provider session of a person, the number ended: the auth-service's
   * (it holds them). Without it (the gateway, svc-admin) ending a person's access leaves sessions
   * to their SSO bound (docs/auth-service.md "SCIM provisioning").
   */
  endSessions?: (userId: string) => Promise<number>;
}

/** The levels of keys a role may create, revoke and roll. */
export const CREATABLE: Record<Role, readonly KeyLevel[]> = {
  ADMIN: ['VIEWER', 'EDITOR', 'ADMIN'],
  EDITOR: ['VIEWER', 'EDITOR'],
  VIEWER: [],
  NONE: [],
};
/** The longest name of a key or a service account. */
export const MAX_NAME = 80;

/** The shared part of the management layer, made once per createManagement. */
export function managementContext(accounts: Accounts, deps: ManagementDeps) {
  const notices = createNotices(accounts, deps.mailer, deps.authUrl ?? '');
  // Sent in the background: a slow or absent mail server never holds the request that caused it.
  const notify = (send: Promise<void>) => void send.catch((err: unknown) => deps.onNoticeError?.(err));
  const now = deps.now ?? Date.now;

  /** One audit entry for what `actor` just did in `workspace` (docs/audit.md). */
  const note = (actor: Actor, workspace: string, action: AuditAction, target: string, detail?: Record<string, string>) =>
    accounts.audit.record({
      workspace,
      actor: actor.label,
      ...auditPartiesOf(actor),
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
    if (project && actor.kind === 'operator') role = 'ADMIN';
    if (!project || role === 'NONE') throw new ManagementError(404, `There is no project ${slug} you can open.`);
    return { project, role };
  }

  /** The person behind the actor; a key acting for itself has none. */
  function personOf(actor: Actor, what: string): string {
    if (actor.kind === 'operator') throw new ManagementError(403, `svc-admin cannot ${what} for a person; sign in as them.`);
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

  async function ownerOf(actor: Actor, workspace: string, what: string) {
    const ws = await accounts.workspaces.get(workspace);
    if (actor.kind === 'operator') {
      if (!ws) throw new ManagementError(404, `There is no workspace ${workspace}.`);
      return ws;
    }
    const userId = personOf(actor, what);
    if (!ws || ws.owner !== userId) throw new ManagementError(403, `Only the owner of workspace ${workspace} can ${what}.`);
    return ws;
  }

  return { accounts, deps, now, notices, notify, note, full, keyTarget, projectFor, personOf, adminOf, ownerOf };
}

/** What each group of operations is given. */
export type ManagementContext = ReturnType<typeof managementContext>;
