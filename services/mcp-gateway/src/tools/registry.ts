/**
 * The tools this gateway can call, each joined to its policy row and its argument check (a
 * built-in tool's schema compiled whole; an upstream tool's checked at its top level,
 * upstreams/argument-check.ts). A definition without a policy row is refused at start-up: the
 * policy table is the one place that decides who may call what.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { CallerContext, ToolPolicy } from '@svc/policy';
import { evaluate, toolPolicy } from '@svc/policy';
import type { ToolDefinition, ToolsBeside } from './types.ts';

/** The problem with a call's arguments (one sentence), or null when they fit; defaults may be filled in. */
export type ArgumentCheck = (args: Record<string, unknown>) => string | null;

export interface RegisteredTool {
  def: ToolDefinition;
  policy: ToolPolicy;
  check: ArgumentCheck;
}

export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

// One validator per tool schema in the process, however many gateways it builds (tests build many):
// compiling is the bulk of a gateway's start, and every gateway's schemas are the same text.
const ajv = new Ajv2020({ allErrors: true, useDefaults: true, strict: false });
const compiled = new Map<string, ValidateFunction>();

/** The compiled check of a built-in tool's argument schema, once per schema text. */
function checkOf(schema: Record<string, unknown>): ArgumentCheck {
  const text = JSON.stringify(schema);
  let validate = compiled.get(text);
  if (!validate) compiled.set(text, (validate = ajv.compile(schema)));
  const v = validate;
  return (args) => (v(args) ? null : describeArgumentErrors(v));
}

/** Where a call finds its tool by name: the built-in registry, or a project's tool set beside it (upstreams/tool-sets.ts). */
export interface ToolLookup extends ToolsBeside {
  get(name: string): RegisteredTool | undefined;
  listFor(caller: CallerContext): ListedTool[];
  readonly upstreamTools: ReadonlyMap<string, RegisteredTool>;
}

/** The built-in registry has no tools beside its own. */
const NO_UPSTREAM_TOOLS: ReadonlyMap<string, RegisteredTool> = new Map();

/** The policy context a list depends on: callers with the same key see the same list. */
export const listKey = (caller: CallerContext): string =>
  `${caller.role}|${caller.serviceAccount}|${caller.plan}|${caller.agents}|${caller.surface}|${caller.endpoint}`;

/** The tools of `tools` this caller may call, as tools/list shows them, sorted by name. */
export function listed(tools: Iterable<RegisteredTool>, caller: CallerContext): ListedTool[] {
  // Sorted by name: a deterministic order (MCP 2026-07-28 "Listing Tools").
  return [...tools]
    .filter((t) => evaluate(t.policy, caller).allowed)
    .sort((a, b) => (a.def.name < b.def.name ? -1 : a.def.name > b.def.name ? 1 : 0))
    .map(({ def }) => ({
      name: def.name,
      title: def.title,
      description: def.description,
      inputSchema: def.inputSchema,
      ...(def.outputSchema ? { outputSchema: def.outputSchema } : {}),
      ...(def.annotations ? { annotations: def.annotations } : {}),
    }));
}

export class ToolRegistry implements ToolLookup {
  private readonly tools = new Map<string, RegisteredTool>();
  private readonly listCache = new Map<string, ListedTool[]>();
  readonly upstreamTools = NO_UPSTREAM_TOOLS;

  constructor(defs: ToolDefinition[]) {
    for (const def of defs) {
      const policy = toolPolicy(def.name);
      if (!policy) throw new Error(`tool ${def.name} has no row in the policy table`);
      this.tools.set(def.name, { def, policy, check: checkOf(def.inputSchema) });
    }
  }

  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  all(): RegisteredTool[] {
    return [...this.tools.values()];
  }

  /** What tools/list shows this caller: only what it may call here. */
  listFor(caller: CallerContext): ListedTool[] {
    const key = listKey(caller);
    let list = this.listCache.get(key);
    if (!list) this.listCache.set(key, (list = listed(this.tools.values(), caller)));
    return list;
  }
}

/** One readable sentence from ajv's errors for the arguments object. */
function describeArgumentErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .map((e) => {
      const at = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : 'arguments';
      if (e.keyword === 'additionalProperties')
        return `${at === 'arguments' ? '' : `${at}: `}unknown argument "${String(e.params['additionalProperty'])}"`;
      if (e.keyword === 'required') return `missing required argument "${String(e.params['missingProperty'])}"`;
      return `${at} ${e.message ?? 'is invalid'}`;
    })
    .join('; ');
}
