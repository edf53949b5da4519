/**
 * The management API under /api/v1/ (docs/management.md "REST"): the management layer's
 * operations for a credential speaking for itself. Each route runs: origin, body, authenticate,
 * who is acting (managementActor), the management bucket, the body against the operation's
 * schema (validateManagementRequest), the operation (whose declared rules the management layer
 * applies first: a confirmed address, a recent second factor). A refusal of the management layer becomes
 * the REST error of its status. An OAuth token is checked against the project its route names
 * (pipeline/path-steps.ts) and manages that project only, at the level approved for it.
 */
import { keyAgent, type Accounts, type Redis } from '@svc/accounts';
import { SvcError } from '@svc/errors';
import { countManagementRequest, streamExport, type Management } from '@svc/management';
import { checkOf } from '@svc/management/check';
import { KEY_DEFAULTS, REPORT_LEAK, type BodyOf } from '@svc/management/contract';
import { tokenRole } from '@svc/policy';
import type { Step } from '../pipeline/exchange.ts';
import { callerOf } from '../pipeline/exchange.ts';
import { respond } from '../pipeline/run.ts';
import type { ManagementRoute, Outcome } from './management/wire.ts';
import { checkBody } from './management-validation.ts';

export { MANAGEMENT_ROUTES, type ManagementRoute } from './management-routes.ts';
export { validateManagementRequest } from './management-validation.ts';

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
      // The audit entry's agent: the key, or svc-cli when it was the personal key svc-cli was given.
      ex.actor = { kind: 'person', userId: user.id, label: user.email, source, requestId: ex.requestId, agent: { key } };
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
        agent: keyAgent(key),
      };
      return;
    }
    // An OAuth token whose person approved ADMIN on the consent page (and whose scope does not
    // lower it) manages its own project as that person, within their role (docs/auth-service.md "Scopes").
    if (!caller.keyHash && caller.type === 'user' && caller.project) {
      if (tokenRole('ADMIN', caller.approvedLevel ?? KEY_DEFAULTS.level, caller.scope ?? '') !== 'ADMIN')
        throw new SvcError('insufficient_scope', {
          message: 'Insufficient scope: managing a project over OAuth needs ADMIN approved on the consent page (scope mcp:admin)',
          // The pipeline's challenge names it in WWW-Authenticate, with the resource metadata.
          data: { scope: 'mcp:admin' },
        });
      // The audit entry's agent: the OAuth client the token was issued to (docs/audit.md "Who and through what").
      const agent = caller.clientId ? { agent: { clientId: caller.clientId } } : {};
      const chain = caller.chain?.length ? { chain: caller.chain } : {};
      ex.actor = {
        kind: 'person',
        userId: caller.id,
        label: caller.label,
        source,
        requestId: ex.requestId,
        onlyProject: caller.project,
        ...agent,
        ...chain,
      };
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

/** The operation on the body validateManagementRequest checked, its refusals as REST errors. */
export function runManagement(management: Management, route: ManagementRoute): Step {
  return async function runManagementStep(ex) {
    const body = route.declaration.body ? (ex.body as Record<string, unknown>) : {};
    const query = new URL(ex.req.url ?? '/', 'http://x').searchParams;
    // A refusal of the management layer is an SvcError of the catalogue already (its status, code,
    // remedy and field; a step-up names its page): the route runner sends it as it is.
    const r: Outcome = await route.operation(management, ex.actor!, { params: ex.params, query, body }, ex);
    if ('stream' in r) {
      const outcome = await streamExport(ex.res, r.stream, () =>
        ex.res.writeHead(200, { ...ex.headers, 'Content-Type': 'application/x-ndjson', 'Cache-Control': 'no-store' }),
      );
      // After the first byte a failure can only cut the body (docs/audit.md "Export"): logged, not answered.
      if (!outcome.complete && outcome.error !== undefined) throw outcome.error;
      return;
    }
    respond(ex, r.body, r.status ?? 200);
  };
}

/** POST /api/v1/keys/report-leak: the key in the body is revoked; always 202, never limited. */
export function reportLeak(management: Management): Step {
  const check = checkOf(REPORT_LEAK.body);
  return async function reportLeakStep(ex) {
    if (ex.parseError) throw ex.parseError;
    checkBody(check, ex.body);
    const { key } = ex.body as BodyOf<typeof REPORT_LEAK>;
    if (!key) throw new SvcError('invalid_params', { message: 'Invalid params: send {"key": "<the leaked key>"}', data: { field: 'key' } });
    await management.reportLeak(key, { source: ex.source, requestId: ex.requestId });
    respond(ex, { reported: true, message: 'If this was a live key, it is revoked now.' }, 202);
  };
}
