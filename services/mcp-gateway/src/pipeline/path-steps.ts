/**
 * The first step of a route with parameters in its path: the parameters percent-decoded and the
 * project, team or account the request speaks to (docs/gateway-pipeline.md "One router"). The
 * router hands the parameters over raw, so each route says here what a malformed encoding means.
 */
import { SvcError } from '@svc/errors';
import type { Target } from '../auth/caller.ts';
import type { Step } from './exchange.ts';

/**
 * POST /mcp/<slug>, /mcp/team/<team> and the REST tool routes: the slug (and the tool's name)
 * decoded where it can be, kept as sent where it cannot (the slug check then refuses it).
 */
export function slugTarget(kind: 'project' | 'team'): Step {
  return function slugTarget(ex) {
    ex.target = { kind, slug: leniently(ex.params['slug']) };
    if (ex.params['tool'] !== undefined) ex.params = { ...ex.params, tool: leniently(ex.params['tool']) };
  };
}

/**
 * The management routes: parameters that do not decode are a path no route takes (404). An OAuth
 * token is bound to one project's MCP resource (RFC 8707): on a project's route it is checked
 * against that project; every other credential speaks for itself (docs/management.md).
 */
export const managementTarget: Step = function managementTarget(ex) {
  const params: Record<string, string> = {};
  try {
    for (const [name, raw] of Object.entries(ex.params)) params[name] = decodeURIComponent(raw);
  } catch {
    throw notFoundError(ex.req.method ?? 'GET', ex.path);
  }
  ex.params = params;
  const project = params['project'];
  const oauth = /^(Bearer|DPoP)\s+svc_at_/i.test(ex.req.headers.authorization ?? '');
  ex.target = project !== undefined && oauth ? { kind: 'project', slug: project } : ACCOUNT;
};

/** The 404 of a path no route takes (also a route's path whose parameters do not decode). */
export function notFoundError(method: string, path: string): SvcError {
  return new SvcError('not_found', {
    message: `Not found: ${method} ${path.slice(0, 200)}`,
    // The OpenAPI document lists the routes, not the tools a caller can call (docs/decisions.md "REST").
    remedy:
      'MCP: POST /mcp/<project_slug>; the tools you can call: tools/list there, or svc tools --project <project_slug>. REST routes: GET /api/v1/openapi.json.',
  });
}

/** The target of the routes where a credential speaks for itself. */
export const ACCOUNT: Target = Object.freeze({ kind: 'account', slug: '' });

function leniently(s: string | undefined): string {
  try {
    return decodeURIComponent(s ?? '');
  } catch {
    return s ?? '';
  }
}
