/**
 * The management API under /api/v1/ (docs/management.md "REST"): the management layer's
 * operations for a credential speaking for itself. Each route runs: origin, body, authenticate,
 * who is acting (managementActor), the management bucket, the operation. A refusal of the
 * management layer becomes the REST error of its status. An OAuth token is checked against the
 * project its route names (app.ts) and manages that project only, with the mcp:admin scope.
 */
import type { Accounts, Redis } from '@svc/accounts';
import { AUDIT_ACTIONS, AUDIT_MAX_PAGE, AUDIT_PAGE } from '@svc/accounts';
import { SvcError } from '@svc/errors';
import { tokenRole } from '@svc/policy';
import { countManagementRequest, ManagementError, streamExport, type Actor, type Management } from '@svc/management';
import type { Exchange, Step } from '../pipeline/exchange.ts';
import { callerOf } from '../pipeline/exchange.ts';
import { respond } from '../pipeline/run.ts';

type Body = Record<string, unknown>;
type Operation = (
  m: Management,
  actor: Actor,
  params: Record<string, string>,
  body: Body,
  ex: Exchange,
) => Promise<{ status?: number; body: unknown } | { stream: AsyncIterable<string> }>;

export interface ManagementRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path, with `{name}` for a parameter (one path segment). */
  path: string;
  name: string;
  /** The route creates something: its success is 201 (the OpenAPI document says so). */
  creates?: true;
  /** Its query parameters, as the OpenAPI document states them (the operation checks them). */
  query?: readonly QueryParameter[];
  operation: Operation;
}

export interface QueryParameter {
  name: string;
  description: string;
  schema: Record<string, unknown>;
}

/** The audit route's query (docs/audit.md "Reading"; parseAuditQuery checks the same). */
const AUDIT_QUERY: readonly QueryParameter[] = [
  { name: 'cursor', description: 'The `next` of the previous page: a stream id.', schema: { type: 'string', pattern: '^[0-9]+-[0-9]+$' } },
  { name: 'action', description: 'Only entries of this action.', schema: { type: 'string', enum: [...AUDIT_ACTIONS] } },
  {
    name: 'limit',
    description: 'Entries per page.',
    schema: { type: 'integer', minimum: 1, maximum: AUDIT_MAX_PAGE, default: AUDIT_PAGE },
  },
  {
    name: 'format',
    description: 'jsonl: every kept entry as JSON lines (application/x-ndjson), streamed, the last line {"complete":true,"entries":n}.',
    schema: { type: 'string', enum: ['json', 'jsonl'], default: 'json' },
  },
];

const str = (b: Body, name: string) => (typeof b[name] === 'string' ? (b[name] as string) : '');
/** `rate_limit` of a body: a number, a numeric string, or null/absent for the plan's limit. */
const limitOf = (b: Body): string | number | null =>
  typeof b['rate_limit'] === 'number' || typeof b['rate_limit'] === 'string' ? b['rate_limit'] : null;
const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

/** The routes, one line each (their OpenAPI entries come from this table too: openapi.ts). */
export const MANAGEMENT_ROUTES: readonly ManagementRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/projects/{project}/keys',
    name: 'list keys',
    operation: async (m, a, p) => {
      const r = await m.keys(a, p['project']!);
      return {
        body: {
          keys: r.keys.map((k) => ({
            id: k.id,
            name: k.name,
            level: k.level,
            prefix: k.prefix,
            status: k.status,
            created_at: iso(k.createdAt),
            expires_at: iso(k.expiresAt),
            last_used_at: iso(k.lastUsedAt),
            rate_limit: k.rateLimit,
          })),
          creatable_levels: r.creatableLevels,
        },
      };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/projects/{project}/keys',
    name: 'create a key',
    creates: true,
    operation: async (m, a, p, b) => {
      const k = await m.createKey(a, p['project']!, {
        name: str(b, 'name').trim(),
        level: str(b, 'level') || 'VIEWER',
        expires: str(b, 'expires') || '90d',
        rateLimit: limitOf(b),
      });
      return {
        status: 201,
        body: { id: k.id, key: k.key, name: k.name, level: k.level, expires_at: iso(k.expiresAt), rate_limit: k.rateLimit },
      };
    },
  },
  {
    method: 'PATCH',
    path: '/api/v1/projects/{project}/keys/{id}',
    name: "set a key's own rate limit",
    operation: async (m, a, p, b) => {
      const k = await m.setKeyLimit(a, p['project']!, p['id']!, 'rate_limit' in b ? limitOf(b) : undefined);
      return { body: { id: k.id, rate_limit: k.rateLimit } };
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/projects/{project}/keys/{id}',
    name: 'revoke a key',
    operation: async (m, a, p) => {
      await m.revokeKey(a, p['project']!, p['id']!);
      return { body: { id: p['id'], revoked: true } };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/projects/{project}/keys/{id}/roll',
    name: 'roll a key',
    creates: true,
    operation: async (m, a, p, b) => {
      const k = await m.rollKey(a, p['project']!, p['id']!, str(b, 'overlap') || '24h');
      return {
        status: 201,
        body: { id: k.id, key: k.key, name: k.name, level: k.level, expires_at: iso(k.expiresAt), old_key_until: iso(k.replacedUntil) },
      };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/projects/{project}/access-requests',
    name: 'list access requests',
    operation: async (m, a, p) => ({
      body: {
        requests: (await m.requests(a, p['project']!)).requests.map((r) => ({
          id: r.id,
          requester: r.requester,
          level: r.level,
          reason: r.reason,
          status: r.status,
          created_at: iso(r.createdAt),
          granted_level: r.grantedLevel,
          decided_by: r.decidedBy,
          decided_at: iso(r.decidedAt),
        })),
      },
    }),
  },
  {
    method: 'POST',
    path: '/api/v1/projects/{project}/access-requests/{id}/approve',
    name: 'approve an access request',
    operation: async (m, a, p, b) => {
      const level = str(b, 'level');
      await m.decideRequest(a, p['project']!, p['id']!, { approve: true, level: level || 'VIEWER' });
      return { body: { id: p['id'], status: 'approved', level: level || 'VIEWER' } };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/projects/{project}/access-requests/{id}/deny',
    name: 'deny an access request',
    operation: async (m, a, p) => {
      await m.decideRequest(a, p['project']!, p['id']!, { approve: false });
      return { body: { id: p['id'], status: 'denied' } };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/projects/{project}/members',
    name: 'list members',
    operation: async (m, a, p) => {
      const { members, invitations } = await m.members(a, p['project']!);
      return {
        body: {
          members,
          invitations: invitations.map((i) => ({ ...i, createdAt: iso(i.createdAt), expiresAt: iso(i.expiresAt) })),
        },
      };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/projects/{project}/members',
    name: 'add a member or change a role',
    operation: async (m, a, p, b) => {
      const email = str(b, 'email').trim();
      const role = str(b, 'role');
      const existing = (await m.members(a, p['project']!)).members.find((x) => x.email === email.toLowerCase());
      if (existing) {
        await m.setRole(a, p['project']!, existing.userId, role);
        return { status: 200, body: { email: email.toLowerCase(), role } };
      }
      // An address without a confirmed account is invited (docs/management.md "Invitations"): 202, not a member yet.
      const { invited } = await m.addMember(a, p['project']!, { email, role });
      return { status: invited ? 202 : 201, body: { email: email.toLowerCase(), role, ...(invited ? { invited: true } : {}) } };
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/projects/{project}/invitations/{id}',
    name: 'cancel an invitation',
    operation: async (m, a, p) => {
      await m.cancelInvitation(a, p['project']!, p['id']!);
      return { body: { id: p['id'], cancelled: true } };
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/projects/{project}/members/{user}',
    name: 'remove a member',
    operation: async (m, a, p) => {
      await m.removeMember(a, p['project']!, p['user']!);
      return { body: { user: p['user'], removed: true } };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/workspaces/{workspace}/projects',
    name: 'create a project',
    creates: true,
    operation: async (m, a, p, b) => {
      const r = await m.createProject(a, { name: str(b, 'name').trim(), workspace: p['workspace']! });
      return { status: 201, body: { slug: r.slug } };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/workspaces/{workspace}/service-accounts',
    name: 'list service accounts',
    operation: async (m, a, p) => {
      const r = await m.bots(a, p['workspace']!);
      return {
        body: {
          service_accounts: r.bots.map((x) => ({
            id: x.id,
            name: x.name,
            grants: x.grants,
            key_prefix: x.keyPrefix,
            created_at: iso(x.createdAt),
          })),
        },
      };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/workspaces/{workspace}/service-accounts',
    name: 'create a service account',
    creates: true,
    operation: async (m, a, p, b) => {
      const r = await m.createBot(a, p['workspace']!, str(b, 'name').trim());
      return { status: 201, body: { id: r.id, name: r.bot, key: r.key } };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/workspaces/{workspace}/service-accounts/{id}/grants',
    name: 'grant a service account a project',
    operation: async (m, a, p, b) => {
      await m.grantBot(a, p['workspace']!, p['id']!, str(b, 'project'), str(b, 'level'));
      return { body: { id: p['id'], project: str(b, 'project'), level: str(b, 'level') } };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/workspaces/{workspace}/service-accounts/{id}/rotate',
    name: "rotate a service account's key",
    creates: true,
    operation: async (m, a, p) => {
      const r = await m.rotateBot(a, p['workspace']!, p['id']!);
      return { status: 201, body: { id: r.id, name: r.bot, key: r.key } };
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/workspaces/{workspace}/service-accounts/{id}',
    name: 'revoke a service account',
    operation: async (m, a, p) => {
      await m.revokeBot(a, p['workspace']!, p['id']!);
      return { body: { id: p['id'], revoked: true } };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/me/access-requests',
    name: 'your access requests and their status',
    operation: async (m, a) => ({
      body: {
        requests: (await m.myRequests(a)).map((r) => ({
          id: r.id,
          project: r.project,
          level: r.level,
          status: r.status,
          granted_level: r.grantedLevel,
          created_at: iso(r.createdAt),
          decided_at: iso(r.decidedAt),
        })),
      },
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/me/apps',
    name: 'list the apps you authorized (OAuth grants)',
    operation: async (m, a) => ({
      body: {
        apps: (await m.account(a)).apps.map((x) => ({
          id: x.id,
          client: x.client,
          client_id: x.clientId,
          projects: x.projects,
          created_at: iso(x.createdAt),
          expires_at: iso(x.expiresAt),
        })),
      },
    }),
  },
  {
    method: 'DELETE',
    path: '/api/v1/me/apps/{id}',
    name: 'revoke an app you authorized',
    operation: async (m, a, p) => {
      await m.revokeApp(a, p['id']!);
      return { body: { id: p['id'], revoked: true } };
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/me/keys/{id}',
    name: 'revoke one of your personal keys',
    operation: async (m, a, p) => {
      await m.revokePersonalKey(a, p['id']!);
      return { body: { id: p['id'], revoked: true } };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/workspaces/{workspace}/usage',
    name: 'usage',
    operation: async (m, a, p) => ({ body: await m.usage(a, p['workspace']!) }),
  },
  {
    method: 'GET',
    path: '/api/v1/workspaces/{workspace}/audit',
    name: 'the audit log',
    query: AUDIT_QUERY,
    operation: async (m, a, p, _b, ex) => {
      const q = new URL(ex.req.url ?? '/', 'http://x').searchParams;
      if (q.get('format') === 'jsonl') return { stream: await m.auditExport(a, p['workspace']!) };
      const format = q.get('format');
      if (format !== null && format !== 'json')
        throw new ManagementError(400, 'The format must be jsonl (the export) or json (a page, the default).', 'format');
      const page = await m.audit(a, p['workspace']!, { cursor: q.get('cursor'), action: q.get('action'), limit: q.get('limit') });
      return { body: { entries: page.entries.map((e) => ({ ...e, at: iso(e.at) })), next: page.next } };
    },
  },
];

/**
 * Who is acting: a personal key speaks for its person, a project key for itself within its
 * project, an OAuth token with mcp:admin for its person within its project; service-account keys
 * cannot manage here (docs/management.md).
 */
export function managementActor(accounts: Accounts): Step {
  return async function managementActorStep(ex) {
    const caller = callerOf(ex);
    const key = caller.keyHash ? await accounts.keys.getById(caller.session) : null;
    const source = ex.source;
    if (key?.kind === 'user_key') {
      const user = await accounts.users.get(key.userId);
      if (!user) throw new SvcError('invalid_api_key', { detail: 'the key owner is gone' });
      ex.actor = { kind: 'person', userId: user.id, label: user.email, source, requestId: ex.requestId };
      return;
    }
    if (key?.kind === 'project_key' && key.level) {
      ex.actor = {
        kind: 'project_key',
        keyId: key.id,
        project: key.project,
        level: key.level,
        label: `key:${key.prefix}`,
        source,
        requestId: ex.requestId,
      };
      return;
    }
    // An OAuth token whose person approved ADMIN on the consent page (and whose scope does not
    // lower it) manages its own project as that person, within their role (docs/auth-service.md "Scopes").
    if (!caller.keyHash && caller.type === 'user' && caller.project) {
      if (tokenRole('ADMIN', caller.approvedLevel ?? 'VIEWER', caller.scope ?? '') !== 'ADMIN')
        throw new SvcError('insufficient_scope', {
          message: 'Insufficient scope: managing a project over OAuth needs ADMIN approved on the consent page (scope mcp:admin)',
          // The pipeline's challenge names it in WWW-Authenticate, with the resource metadata.
          data: { scope: 'mcp:admin' },
        });
      ex.actor = { kind: 'person', userId: caller.id, label: caller.label, source, requestId: ex.requestId, onlyProject: caller.project };
      return;
    }
    throw new SvcError('access_denied', {
      message: 'This credential cannot manage: service-account keys call tools only',
      remedy:
        "Use your personal key (svc login, then svc auth token), a project ADMIN key, or an OAuth token with mcp:admin on the project's routes.",
    });
  };
}

/**
 * The management bucket: MANAGEMENT_PER_MINUTE a minute for the credential's workspace, counted
 * apart from tool traffic (countManagementRequest), so tool calls never stop an admin. The
 * dashboard's state-changing requests count in the same bucket.
 */
export function managementBucket(redis: Redis, now: () => number): Step {
  return async function managementBucketStep(ex) {
    // A store that does not answer is the route runner's 503 (pipeline/run.ts), as on every step.
    const count = await countManagementRequest(redis, callerOf(ex).workspace, now());
    ex.headers = {
      ...ex.headers,
      'X-RateLimit-Limit': count.limit,
      'X-RateLimit-Remaining': Math.max(0, count.limit - count.used),
      'X-RateLimit-Reset': count.reset,
    };
    if (count.retryAfter > 0)
      throw new SvcError('rate_limited', {
        message: `Management rate limit exceeded: ${count.limit} requests a minute`,
        headers: { 'Retry-After': String(count.retryAfter) },
      });
  };
}

/** The operation, its refusals as REST errors. */
export function runManagement(management: Management, route: ManagementRoute): Step {
  return async function runManagementStep(ex) {
    if (ex.parseError) throw ex.parseError;
    const body = ex.body && typeof ex.body === 'object' && !Array.isArray(ex.body) ? (ex.body as Body) : null;
    if ((route.method === 'POST' || route.method === 'PATCH') && !body)
      throw new SvcError('invalid_params', { message: 'Invalid params: the body must be a JSON object' });
    let r: Awaited<ReturnType<Operation>>;
    try {
      r = await route.operation(management, ex.actor!, ex.params, body ?? {}, ex);
      if ('stream' in r) {
        const outcome = await streamExport(ex.res, r.stream, () =>
          ex.res.writeHead(200, { ...ex.headers, 'Content-Type': 'application/x-ndjson', 'Cache-Control': 'no-store' }),
        );
        // After the first byte a failure can only cut the body (docs/audit.md "Export"): logged, not answered.
        if (!outcome.complete && outcome.error !== undefined) throw outcome.error;
        return;
      }
    } catch (err) {
      if (!(err instanceof ManagementError)) throw err;
      const code =
        err.status === 400 ? 'invalid_params' : err.status === 403 ? 'access_denied' : err.status === 404 ? 'not_found' : 'conflict';
      throw new SvcError(code, { message: err.message, ...(err.field ? { data: { field: err.field } } : {}), remedy: REMEDY[code] });
    }
    respond(ex, r.body, r.status ?? 200);
  };
}

const REMEDY: Record<string, string> = {
  invalid_params: 'Fix the named field and send again.',
  access_denied: "Ask the project's admins, or use a credential that may do this.",
  not_found: 'Check the project, key or request id: it is not one this credential can see.',
  conflict: 'Reload and decide again.',
};

/** POST /api/v1/keys/report-leak: the key in the body is revoked; always 202, never limited. */
export function reportLeak(management: Management): Step {
  return async function reportLeakStep(ex) {
    if (ex.parseError) throw ex.parseError;
    const body = ex.body && typeof ex.body === 'object' ? (ex.body as Body) : {};
    const key = str(body, 'key');
    if (!key) throw new SvcError('invalid_params', { message: 'Invalid params: send {"key": "<the leaked key>"}' });
    await management.reportLeak(key, { source: ex.source, requestId: ex.requestId });
    respond(ex, { reported: true, message: 'If this was a live key, it is revoked now.' }, 202);
  };
}
