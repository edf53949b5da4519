/**
 * The part of a tool call settled before the rate limiter (docs/contract.md "Who pays for a
 * request"): which tool (legacy `rlm_` names map to `svc_`), the policy's decision, and whether the
 * arguments fit the tool's schema. A call refused here consumes neither counter.
 */
import { SvcError } from '@svc/errors';
import type { CallerContext, Decision } from '@svc/policy';
import { describeRefusal, evaluate, isKeyLevel, roleAtLeast, scopeForLevel } from '@svc/policy';
import type { RegisteredTool, ToolLookup } from '../tools/registry.ts';

/** Why a call is refused before it runs. */
export type Refusal =
  { kind: 'unknown_tool'; message: string } | { kind: 'denied'; error: SvcError } | { kind: 'invalid_arguments'; message: string };

export interface PreparedCall {
  name: string;
  tool: RegisteredTool | undefined;
  args: Record<string, unknown>;
  decision: Decision | null;
  /** The name was a legacy rlm_ name. */
  legacyName: boolean;
  refusal: Refusal | null;
  countsAsQuery: boolean;
}

export function prepareCall(
  registry: ToolLookup,
  params: Record<string, unknown>,
  policy: CallerContext,
  legacyNames: boolean,
): PreparedCall {
  const raw = typeof params['name'] === 'string' ? params['name'] : '';
  const legacyName = legacyNames && raw.startsWith('rlm_');
  const name = legacyName ? `svc_${raw.slice(4)}` : raw;
  const tool = registry.get(name);
  const given = params['arguments'] ?? {};
  const args = isObject(given) ? given : {};
  const decision = tool ? evaluate(tool.policy, policy, args) : null;
  const prepared: PreparedCall = { name: raw, tool, args, decision, legacyName, refusal: null, countsAsQuery: false };
  if (typeof params['name'] !== 'string') prepared.refusal = { kind: 'unknown_tool', message: 'Invalid params: "name" must be a string' };
  else if (!tool || !decision)
    prepared.refusal = {
      kind: 'unknown_tool',
      message: `Unknown tool: ${raw.slice(0, 100)}. Call tools/list or svc_help for the tools available here.`,
    };
  else if (decision.allowed === false) prepared.refusal = { kind: 'denied', error: denial(tool.def.name, decision, policy) };
  else if (!isObject(given))
    prepared.refusal = { kind: 'invalid_arguments', message: `Invalid arguments for ${tool.def.name}: "arguments" must be an object` };
  else {
    const problem = tool.check(args);
    if (problem) prepared.refusal = { kind: 'invalid_arguments', message: `Invalid arguments for ${tool.def.name}: ${problem}` };
    else prepared.countsAsQuery = tool.policy.countsAsQuery;
  }
  return prepared;
}

/**
 * A policy refusal naming the gate: 403 on REST; on MCP a JSON-RPC error body with HTTP 403 for
 * the level gate and HTTP 200 (a method error) for the others. When
 * the person's own role would allow the call and only the OAuth token's scope does not, it is
 * `insufficient_scope` (HTTP 403 on every protocol, RFC 6750 §3.1) naming the scope to ask for.
 */
function denial(tool: string, decision: Extract<Decision, { allowed: false }>, policy: CallerContext): SvcError {
  const needed = decision.needed;
  if (decision.gate === 'level' && policy.unscopedRole && isKeyLevel(needed) && roleAtLeast(policy.unscopedRole, needed)) {
    return new SvcError('insufficient_scope', {
      message: `Insufficient scope: ${tool} needs ${needed}; the token was granted ${decision.have}`,
      data: { scope: scopeForLevel(needed), needed, have: decision.have },
    });
  }
  return new SvcError('access_denied', {
    message: `Access denied: ${describeRefusal(tool, decision)}`,
    // A refusal by the caller's role is HTTP 403 like one by its scope (MCP authorization, "Error
    // Handling": 403 for insufficient permissions); plan, surface and entitlement gates say what
    // this project offers, not who may act, and stay JSON-RPC method errors (docs/errors.md).
    inBody: decision.gate !== 'level',
    data: { gate: decision.gate, needed: decision.needed, have: decision.have },
    remedy:
      decision.gate === 'level'
        ? `Call svc_request_access with requested_level ${decision.needed} and a reason.`
        : 'Call svc_help to see what is available here and why.',
  });
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
