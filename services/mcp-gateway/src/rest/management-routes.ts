/**
 * The management API's routes (docs/management.md "REST"): one per operation of the contract,
 * each run by its handler (./management/*.ts, by resource), and the matcher that finds one for a
 * method and path.
 */
import { ACCESS_REQUEST_ROUTES } from './management/access-requests.ts';
import type { ManagementRoute } from './management/handle.ts';
import { KEY_ROUTES } from './management/keys.ts';
import { MEMBER_ROUTES } from './management/members.ts';
import { SERVICE_ACCOUNT_ROUTES } from './management/service-accounts.ts';
import { ME_ROUTES, WORKSPACE_ROUTES } from './management/workspaces.ts';

export type { ManagementRoute } from './management/handle.ts';

/** Every route; their OpenAPI entries come from the same declarations (management-openapi.ts). */
export const MANAGEMENT_ROUTES: readonly ManagementRoute[] = [
  ...KEY_ROUTES,
  ...ACCESS_REQUEST_ROUTES,
  ...MEMBER_ROUTES,
  ...SERVICE_ACCOUNT_ROUTES,
  ...WORKSPACE_ROUTES,
  ...ME_ROUTES,
];

/** Each route's path as a pattern (`{name}`: one segment) with its parameter names, compiled once. */
const COMPILED = MANAGEMENT_ROUTES.map((route) => {
  const names: string[] = [];
  const pattern = new RegExp(`^${route.path.replace(/\{(\w+)\}/g, (_m, n: string) => (names.push(n), '([^/]+)'))}$`);
  return { route, pattern, names };
});

/** The route for `method` and `path` with its percent-decoded parameters, the methods the path takes, or null. */
export function matchManagementRoute(
  method: string,
  path: string,
): { route: ManagementRoute; params: Record<string, string> } | { allow: string } | null {
  const allowed: string[] = [];
  for (const { route, pattern, names } of COMPILED) {
    const m = pattern.exec(path);
    if (!m) continue;
    if (route.method !== method) {
      allowed.push(route.method);
      continue;
    }
    const params: Record<string, string> = {};
    try {
      names.forEach((n, i) => (params[n] = decodeURIComponent(m[i + 1]!)));
    } catch {
      return null;
    }
    return { route, params };
  }
  return allowed.length ? { allow: [...allowed, 'OPTIONS'].join(', ') } : null;
}
