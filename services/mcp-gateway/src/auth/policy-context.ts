/** The policy's view of an authenticated caller on this request: role, plan, surface, endpoint. */
import type { IncomingHttpHeaders } from 'node:http';
import type { CallerContext, Surface } from '@svc/policy';
import { surfaceOf } from '../mcp/checks.ts';
import type { ResolvedCaller, Target } from './caller.ts';

export function policyContext(
  caller: ResolvedCaller,
  headers: IncomingHttpHeaders,
  target: Target,
): { surface: Surface; policy: CallerContext } {
  const surface = surfaceOf(headers, caller.defaultSurface);
  // The optional member added after the literal, not spread inside it (auth/tool-caller.ts).
  const policy: CallerContext = {
    role: caller.role,
    serviceAccount: caller.serviceAccount,
    plan: caller.plan,
    agents: caller.agents,
    surface,
    endpoint: target.kind === 'team' ? 'team' : 'project',
  };
  if (caller.unscopedRole) policy.unscopedRole = caller.unscopedRole;
  return { surface, policy };
}
