/**
 * svc_help: what this caller can call here, and what else exists with the gate (level, plan,
 * surface, entitlement, endpoint) that keeps it out. Reads the policy table, as tools/list does,
 * and on a project's endpoint the project's upstream tools beside it, under the names tools/list
 * gives them (docs/upstream-servers.md "Names"), each judged by its own policy row.
 */
import type { CallerContext, Decision, ToolPolicy } from '@svc/policy';
import { TOOL_POLICIES, describeRefusal, evaluate } from '@svc/policy';
import { keepText, sizedJsonText } from '../http/json-text.ts';
import type { ToolCaller, ToolDefinition, ToolResult, ToolsBeside } from './types.ts';
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

/**
 * Callers' answers kept: at most `count`, and `bytes` of their JSON in all. Most are about 5 KB
 * (the built-in tools); one on a project with 1,000 upstream tools, each summary cut to 120
 * characters (upstreams/tool-sets.ts), is 0.30 MB, at most about 1.6 MB (every character escaped).
 * Before, only their number was bounded: with titles uncut, 1,000 answers of 5 MB each.
 */
const ANSWERS_KEPT = { count: 1_000, bytes: 16 * 1024 * 1024 };

/** Whole answers by key, the oldest going first past either bound. */
export interface KeptAnswers {
  find(key: string): ToolResult | undefined;
  keep(key: string, answer: ToolResult): void;
  readonly count: number;
  /** The UTF-8 bytes of their JSON. */
  readonly bytes: number;
}

/** Answers kept within `limits` (ANSWERS_KEPT; tests give less). */
export function keptAnswers(limits: { count: number; bytes: number } = ANSWERS_KEPT): KeptAnswers {
  const answers = new Map<string, { answer: ToolResult; bytes: number }>();
  let bytes = 0;
  return {
    find: (key) => answers.get(key)?.answer,
    keep(key, answer) {
      // Its JSON is made now rather than at its first answer, and kept for it (json-text.ts).
      const size = sizedJsonText(answer).bytes ?? Buffer.byteLength(JSON.stringify(answer));
      if (size > limits.bytes || answers.has(key)) return;
      for (const [oldest, kept] of answers) {
        if (answers.size < limits.count && bytes + size <= limits.bytes) break;
        answers.delete(oldest);
        bytes -= kept.bytes;
      }
      answers.set(key, { answer, bytes: size });
      bytes += size;
    },
    get count() {
      return answers.size;
    },
    get bytes() {
      return bytes;
    },
  };
}

interface HelpLists {
  available: { name: string; summary: string }[];
  unavailable: { name: string; reason: string; remedy: string }[];
}

type UpstreamTools = ToolsBeside['upstreamTools'];

/** What opens a gate that keeps `policy`'s tool out, as the answer says it. */
function remedyOf(policy: ToolPolicy, d: Extract<Decision, { allowed: false }>): string {
  switch (d.gate) {
    case 'level':
      return 'call svc_request_access';
    case 'plan':
      return `upgrade the workspace to ${d.needed}`;
    case 'surface':
      // An upstream tool's row may offer it on no surface at all: only its admins can change that.
      return policy.surfaces[0] ? `connect with X-Svc-Surface: ${policy.surfaces[0]}` : "ask the project's admins to offer it";
    case 'entitlement':
      return 'ask for the Agents entitlement';
    case 'endpoint':
      return 'use the other endpoint';
  }
}

/** The tools of `policies` this caller can call, with their summaries, and the others with their gates. */
function describe(policies: Iterable<ToolPolicy>, ctx: CallerContext): HelpLists {
  const available: HelpLists['available'] = [];
  const unavailable: HelpLists['unavailable'] = [];
  for (const policy of policies) {
    const d = evaluate(policy, ctx);
    if (d.allowed) {
      const gated = policy.argumentPlans?.filter((g) => !evaluate(policy, ctx, { [g.argument]: g.values[0] }).allowed) ?? [];
      const note = gated.map((g) => ` (${g.argument} ${g.values.join('/')} needs ${g.plan})`).join('');
      available.push({ name: policy.name, summary: policy.summary + note });
    } else unavailable.push({ name: policy.name, reason: describeRefusal(policy.name, d), remedy: remedyOf(policy, d) });
  }
  return { available, unavailable };
}

/** Both lists as the answer's text shows them. */
function listedText({ available, unavailable }: HelpLists): string {
  const lines = ['', 'Tools you can call:', ...available.map((t) => `- ${t.name}: ${t.summary}`)];
  if (unavailable.length) lines.push('', 'Other tools:', ...unavailable.map((t) => `- ${t.name}: ${t.reason}; to get it, ${t.remedy}`));
  return lines.join('\n');
}

/** The built-in tools' lists of one policy context, and a project's upstream tools' beside them, kept. */
function helpLists(tools: () => ToolDefinition[]) {
  // The built-in lists depend only on the policy context: the built-in tools are fixed once the gateway is built.
  const builtIn = new Map<string, HelpLists>();
  // A project's upstream tools are a new map each time its tool set is read again
  // (upstreams/tool-sets.ts), so lists kept by that map are never stale and go with it.
  const beside = new WeakMap<UpstreamTools, Map<string, HelpLists>>();
  const builtInOf = (ctx: CallerContext, key: string): HelpLists => {
    let lists = builtIn.get(key);
    if (!lists) {
      const handled = new Set(tools().map((t) => t.name));
      const policies = TOOL_POLICIES.filter((p) => handled.has(p.name));
      lists = describe(policies, ctx);
      builtIn.set(key, lists);
    }
    return lists;
  };
  const upstreamOf = (upstream: UpstreamTools, ctx: CallerContext, key: string): HelpLists => {
    let byContext = beside.get(upstream);
    if (!byContext) beside.set(upstream, (byContext = new Map()));
    let lists = byContext.get(key);
    if (!lists) {
      // In name order, after the built-in tools, as tools/list sorts them among its own.
      const policies = [...upstream.values()].map((t) => t.policy).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      byContext.set(key, (lists = describe(policies, ctx)));
    }
    return lists;
  };
  /**
   * The caller's lists: the built-in tools, then the project's upstream tools when it has any. A
   * person with no role on the project can call none of them (their rows ask VIEWER at least) and
   * is not told what servers the project has.
   */
  return (ctx: CallerContext, key: string, upstream: UpstreamTools | undefined): HelpLists => {
    const own = builtInOf(ctx, key);
    if (!upstream?.size || (ctx.role === 'NONE' && !ctx.serviceAccount)) return own;
    const theirs = upstreamOf(upstream, ctx, key);
    return { available: [...own.available, ...theirs.available], unavailable: [...own.unavailable, ...theirs.unavailable] };
  };
}

export function svcHelp(tools: () => ToolDefinition[], answers: KeptAnswers = keptAnswers()): ToolDefinition {
  const listsFor = helpLists(tools);
  // Whole answers per caller, serialized once (docs/gateway-pipeline.md "Answers serialized once");
  // the oldest goes first when full. A project's upstream tools are told apart by their map's number.
  const setNumbers = new WeakMap<UpstreamTools, number>();
  let lastSet = 0;
  const setNumber = (upstream: UpstreamTools | undefined): number => {
    if (!upstream?.size) return 0;
    let n = setNumbers.get(upstream);
    if (n === undefined) setNumbers.set(upstream, (n = ++lastSet));
    return n;
  };
  return defineTool({
    name: 'svc_help',
    title: 'Help',
    description:
      'Lists the tools you can call here and, for every other tool, what keeps it out (access level, plan, surface or entitlement) and how to get it.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    readsToolSet: true,
    async call(_args, caller, beside) {
      const ctx = callerContext(caller);
      const key = `${ctx.role}|${ctx.serviceAccount}|${ctx.plan}|${ctx.agents}|${ctx.surface}|${ctx.endpoint}`;
      const where = caller.project ? `project ${caller.project}` : `team ${caller.workspace}`;
      const upstream = beside?.upstreamTools;
      // Everything the answer says is in its key, so a kept answer is never stale.
      const answerKey = `${key}|${where}|${caller.label}|${caller.ownRole ?? ''}|${setNumber(upstream)}`;
      const kept = answers.find(answerKey);
      if (kept) return kept;
      const lists = listsFor(ctx, key, upstream);
      const { available, unavailable } = lists;
      const listed = listedText(lists);
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
      answers.keep(answerKey, answer);
      return answer;
    },
  });
}
