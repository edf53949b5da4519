/**
 * svc_help: what this caller can call here, and what else exists with the gate (level, plan,
 * surface, entitlement, endpoint) that keeps it out. Reads the policy table, as tools/list does.
 */
import type { CallerContext } from '@svc/policy';
import { TOOL_POLICIES, describeRefusal, evaluate } from '@svc/policy';
import { keepText } from '../http/json-text.ts';
import type { ToolCaller, ToolDefinition, ToolResult } from './types.ts';
import { defineTool, text } from './types.ts';

function callerContext(c: ToolCaller): CallerContext {
  return {
    role: c.role,
    serviceAccount: c.serviceAccount,
    plan: c.plan,
    agents: c.agents,
    surface: c.surface,
    endpoint: c.project === null ? 'team' : 'project',
  };
}

/** How many callers' answers are kept: about 5 KB each (the text and its JSON), 5 MB in all. */
const ANSWERS_KEPT = 1_000;

interface HelpLists {
  available: { name: string; summary: string }[];
  unavailable: { name: string; reason: string; remedy: string }[];
  /** Both lists as the text shows them. */
  listed: string;
}

export function svcHelp(tools: () => ToolDefinition[]): ToolDefinition {
  // The lists depend only on the policy context; the tool set is fixed once the gateway is built.
  const cache = new Map<string, HelpLists>();
  // Whole answers per caller, serialized once (docs/gateway-pipeline.md "Answers serialized once");
  // the oldest goes first when full.
  const answers = new Map<string, ToolResult>();
  const describe = (ctx: CallerContext): HelpLists => {
    const handled = new Set(tools().map((t) => t.name));
    const available: HelpLists['available'] = [];
    const unavailable: HelpLists['unavailable'] = [];
    for (const policy of TOOL_POLICIES) {
      if (!handled.has(policy.name)) continue;
      const d = evaluate(policy, ctx);
      if (d.allowed) {
        const gated = policy.argumentPlans?.filter((g) => !evaluate(policy, ctx, { [g.argument]: g.values[0] }).allowed) ?? [];
        const note = gated.map((g) => ` (${g.argument} ${g.values.join('/')} needs ${g.plan})`).join('');
        available.push({ name: policy.name, summary: policy.summary + note });
      } else {
        const remedy =
          d.gate === 'level'
            ? 'call svc_request_access'
            : d.gate === 'plan'
              ? `upgrade the workspace to ${d.needed}`
              : d.gate === 'surface'
                ? `connect with X-Svc-Surface: ${policy.surfaces[0]}`
                : d.gate === 'entitlement'
                  ? 'ask for the Agents entitlement'
                  : 'use the other endpoint';
        unavailable.push({ name: policy.name, reason: describeRefusal(policy.name, d), remedy });
      }
    }
    const lines = ['', 'Tools you can call:', ...available.map((t) => `- ${t.name}: ${t.summary}`)];
    if (unavailable.length) lines.push('', 'Other tools:', ...unavailable.map((t) => `- ${t.name}: ${t.reason}; to get it, ${t.remedy}`));
    return { available, unavailable, listed: lines.join('\n') };
  };
  return defineTool({
    name: 'svc_help',
    title: 'Help',
    description:
      'Lists the tools you can call here and, for every other tool, what keeps it out (access level, plan, surface or entitlement) and how to get it.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    async call(_args, caller) {
      const ctx = callerContext(caller);
      const key = `${ctx.role}|${ctx.serviceAccount}|${ctx.plan}|${ctx.agents}|${ctx.surface}|${ctx.endpoint}`;
      const where = caller.project ? `project ${caller.project}` : `team ${caller.workspace}`;
      // Everything the answer says is in its key, so a kept answer is never stale.
      const answerKey = `${key}|${where}|${caller.label}|${caller.ownRole ?? ''}`;
      const kept = answers.get(answerKey);
      if (kept) return kept;
      let lists = cache.get(key);
      if (!lists) cache.set(key, (lists = describe(ctx)));
      const { available, unavailable, listed } = lists;
      const who = caller.serviceAccount
        ? 'a service account'
        : caller.ownRole
          ? `role ${caller.role} (the level approved for this token; your own role is ${caller.ownRole})`
          : `role ${caller.role}`;
      // A person with no role on the project is told nothing about it beyond its name, not its plan.
      const outsider = caller.role === 'NONE' && !caller.serviceAccount;
      const plan = outsider ? '' : `, plan ${caller.plan}`;
      const answer = keepText(
        text(`svc on ${where}: you are ${caller.label} with ${who}${plan}, surface ${caller.surface}.\n${listed}`, {
          project: caller.project,
          role: caller.role,
          ...(caller.ownRole ? { own_role: caller.ownRole } : {}),
          ...(outsider ? {} : { plan: caller.plan }),
          surface: caller.surface,
          available,
          unavailable,
        }),
      );
      if (answers.size >= ANSWERS_KEPT) answers.delete(answers.keys().next().value!);
      answers.set(answerKey, answer);
      return answer;
    },
  });
}
