/**
 * The part of tools/call settled before the rate limiter: which tool (legacy `rlm_` names map to
 * `svc_`), and the policy decision, since a call the policy refuses counts as no monthly query.
 */
import type { CallerContext, Decision } from '@svc/policy';
import { evaluate } from '@svc/policy';
import type { RegisteredTool, ToolRegistry } from '../tools/registry.ts';

export interface PreparedCall {
  name: string;
  tool: RegisteredTool | undefined;
  args: unknown;
  decision: Decision | null;
  /** The name was a legacy rlm_ name. */
  legacyName: boolean;
  countsAsQuery: boolean;
}

export function prepareCall(
  registry: ToolRegistry,
  params: Record<string, unknown>,
  policy: CallerContext,
  legacyNames: boolean,
): PreparedCall {
  const raw = typeof params['name'] === 'string' ? params['name'] : '';
  const legacyName = legacyNames && raw.startsWith('rlm_');
  const name = legacyName ? `svc_${raw.slice(4)}` : raw;
  const tool = registry.get(name);
  const args = params['arguments'] ?? {};
  const argObject = args !== null && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : undefined;
  const decision = tool ? evaluate(tool.policy, policy, argObject) : null;
  return { name: raw, tool, args, decision, legacyName, countsAsQuery: !!tool && !!decision?.allowed && tool.policy.countsAsQuery };
}
