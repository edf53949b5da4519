/**
 * A project's tools: the built-in ones beside its upstream servers' (docs/upstream-servers.md). Each
 * gateway keeps a project's tool set in memory, read from Redis in one command (the project's
 * upstream hash), dropped when an invalidation message names the project (INVALIDATES.upstreams)
 * and at most UPSTREAM_LIMITS.toolSets.ttlMs old; at most UPSTREAM_LIMITS.toolSets.projects sets,
 * holding at most UPSTREAM_LIMITS.toolSets.bytes of upstream tools, are kept, the least recently
 * used going first. An upstream tool is offered when its row is on;
 * its policy row is evaluated exactly as a built-in tool's, its arguments checked at the top level
 * of its schema (argument-check.ts).
 */
import { INVALIDATES, type Accounts, type Redis } from '@svc/accounts';
import type { Config } from '@svc/config';
import type { Logger } from '@svc/logger';
import type { CallerContext, ToolPolicy } from '@svc/policy';
import {
  Breakers,
  createUpstreams,
  listedName,
  UPSTREAM_LIMITS,
  type ProjectUpstreams,
  type BuiltinToolSetting,
  type ToolDescriptor,
  type Upstream,
  type Upstreams,
  type UpstreamTool,
  type UpstreamView,
} from '@svc/upstreams';
import { listed, listKey, type ListedTool, type RegisteredTool, type ToolLookup, type ToolRegistry } from '../tools/registry.ts';
import type { ToolCaller, ToolResult } from '../tools/types.ts';
import { topLevelCheck } from './argument-check.ts';
import { forwarder } from './forward.ts';

type Call = (args: Record<string, unknown>, caller: ToolCaller) => Promise<ToolResult>;

export interface ToolSetDeps {
  registry: ToolRegistry;
  upstreams: Upstreams;
  logger: Logger;
  /** Tells the project's admins of tools a background refresh found new or changed (the audit log, and so webhooks). */
  flag: (workspace: string, view: UpstreamView) => Promise<void>;
  /** The call of one upstream tool (forward.ts). */
  forward: (upstream: Upstream, tool: string) => Call;
  now?: () => number;
  /** The bytes of upstream tools the sets may hold together (UPSTREAM_LIMITS.toolSets.bytes; tests give less). */
  bytes?: number;
  /** One workspace's share of the sets and bytes (UPSTREAM_LIMITS.toolSets.perWorkspace; tests give less). */
  perWorkspace?: { projects?: number; bytes?: number };
}

/** What the invalidation messages about a project's upstreams start with (INVALIDATES.upstreams). */
const MESSAGE_PREFIX = INVALIDATES.upstreams('');

/**
 * An upstream tool's summary in svc_help, at most this many characters: each caller's answer lists
 * up to 1,000 upstream tools (docs/upstream-servers.md "Bounds"). Before, a title was used whole:
 * 1,000 tools of 2,500-character titles made one answer 5 MB.
 */
const SUMMARY_LENGTH = 120;

/**
 * The built-in tools, under the project's own approval rules where its admins set one
 * (docs/approvals.md "The rule"), and one project's upstream tools, as one lookup.
 */
export class ProjectToolSet implements ToolLookup {
  private readonly lists = new Map<string, ListedTool[]>();
  private readonly registry: ToolRegistry;
  private readonly builtins: ReadonlyMap<string, RegisteredTool>;
  readonly upstreamTools: ReadonlyMap<string, RegisteredTool>;

  constructor(registry: ToolRegistry, upstreamTools: Map<string, RegisteredTool>, settings: readonly BuiltinToolSetting[] = []) {
    this.registry = registry;
    this.upstreamTools = upstreamTools;
    const builtins = new Map<string, RegisteredTool>();
    for (const s of settings) {
      const tool = registry.get(s.tool);
      if (tool) builtins.set(tool.def.name, { ...tool, policy: { ...tool.policy, approval: s.approval } });
    }
    this.builtins = builtins;
  }

  get(name: string): RegisteredTool | undefined {
    const builtIn = this.registry.get(name);
    if (builtIn) return this.builtins.get(builtIn.def.name) ?? builtIn;
    return this.upstreamTools.get(name);
  }

  listFor(caller: CallerContext): ListedTool[] {
    const key = listKey(caller);
    let list = this.lists.get(key);
    if (!list) {
      const own = listed(this.upstreamTools.values(), caller);
      list = [...this.registry.listFor(caller), ...own].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      this.lists.set(key, list);
    }
    return list;
  }
}

export function projectToolSets(deps: ToolSetDeps) {
  const now = deps.now ?? Date.now;
  const budget = deps.bytes ?? UPSTREAM_LIMITS.toolSets.bytes;
  const share = { ...UPSTREAM_LIMITS.toolSets.perWorkspace, ...deps.perWorkspace };
  /** Per project, its set (least recently used first) and the bytes of upstream tools it holds, once read. */
  const sets = new Map<string, CachedSet>();
  /** The bytes every set read so far holds: `budget` at most, the newest set apart. */
  let held = 0;
  /** What each workspace's sets hold: within its share (docs/security.md "Shared pools, per-tenant shares"). */
  const byWorkspace = new Map<string, { sets: number; bytes: number }>();

  function drop(project: string): void {
    const e = sets.get(project);
    if (!e) return;
    held -= e.bytes;
    sets.delete(project);
    const w = byWorkspace.get(e.workspace)!;
    w.sets--;
    w.bytes -= e.bytes;
    if (w.sets === 0) byWorkspace.delete(e.workspace);
  }

  /** A workspace past its share drops its own least recently used sets, never `keep` nor another workspace's. */
  function keepToShare(workspace: string, keep: string): void {
    const w = byWorkspace.get(workspace);
    if (!w) return;
    for (const [project, e] of sets) {
      if (w.sets <= share.projects && w.bytes <= share.bytes) break;
      if (e.workspace === workspace && project !== keep) drop(project);
    }
  }

  /** The set of `project` is read: its bytes are counted, and the least recently used sets go past the budget. */
  function charge(project: string, set: Promise<ProjectToolSet>, bytes: number): void {
    const entry = sets.get(project);
    if (entry?.set !== set) return;
    entry.bytes = bytes;
    held += bytes;
    byWorkspace.get(entry.workspace)!.bytes += bytes;
    keepToShare(entry.workspace, project);
    for (const oldest of sets.keys()) {
      if (held <= budget) break;
      if (oldest !== project) drop(oldest);
    }
  }

  const build = (read: ProjectUpstreams) => new ProjectToolSet(deps.registry, upstreamToolsOf(read, deps.forward), read.builtins);

  /** Reads `u`'s tools again in the background, by one gateway (a lease); what it flags goes to the admins. */
  function refreshInBackground(project: string, workspace: string, u: Upstream, force: boolean): void {
    void deps.upstreams
      .refreshIfDue(project, workspace, u, force)
      .then((view) => (view?.flagged?.length ? deps.flag(workspace, view) : undefined))
      .catch((err: unknown) => deps.logger.warn('upstream refresh failed', { project, upstream: u.name, err }));
  }

  /** Upstreams due a refresh are read again in the background. */
  function refreshDue(project: string, workspace: string, read: ProjectUpstreams): void {
    for (const u of read.upstreams)
      if (u.refreshedAt === null || now() - u.refreshedAt >= UPSTREAM_LIMITS.refreshEveryMs)
        refreshInBackground(project, workspace, u, false);
  }

  return {
    /** The project's tool set: built-in and upstream tools; at once when it is held, read, and current. */
    get(project: string, workspace: string): ProjectToolSet | Promise<ProjectToolSet> {
      const hit = sets.get(project);
      if (hit && hit.until > now()) {
        // Least recently used goes first: a hit moves to the end.
        sets.delete(project);
        sets.set(project, hit);
        return hit.ready ?? hit.set;
      }
      drop(project);
      const set: Promise<ProjectToolSet> = deps.upstreams.read(project).then((read) => {
        refreshDue(project, workspace, read);
        charge(project, set, read.toolBytes);
        const built = build(read);
        const entry = sets.get(project);
        if (entry?.set === set) entry.ready = built;
        return built;
      });
      sets.set(project, { set, ready: null, until: now() + UPSTREAM_LIMITS.toolSets.ttlMs, bytes: 0, workspace });
      const w = byWorkspace.get(workspace) ?? { sets: 0, bytes: 0 };
      w.sets++;
      byWorkspace.set(workspace, w);
      set.catch(() => {
        if (sets.get(project)?.set === set) drop(project);
      });
      keepToShare(workspace, project);
      if (sets.size > UPSTREAM_LIMITS.toolSets.projects) drop(sets.keys().next().value!);
      return set;
    },

    /**
     * Follows the invalidation channel on `subscriber` (the connection the credential cache
     * subscribes with): a message naming a project's upstreams drops its set; a reconnection, when
     * messages may have been missed, drops every set.
     */
    follow(subscriber: Redis): void {
      subscriber.on('message', (_channel: string, message: string) => {
        if (message.startsWith(MESSAGE_PREFIX)) drop(message.slice(MESSAGE_PREFIX.length));
      });
      subscriber.on('ready', () => {
        sets.clear();
        byWorkspace.clear();
        held = 0;
      });
    },

    /** An upstream said its tools changed (notifications/tools/list_changed): read them again now, by one gateway. */
    listChanged(upstream: Upstream, workspace: string): void {
      refreshInBackground(upstream.project, workspace, upstream, true);
    },
  };
}

export type ProjectToolSets = ReturnType<typeof projectToolSets>;

interface CachedSet {
  set: Promise<ProjectToolSet>;
  /** The set once read: a hit answers with it at once (no promise, no microtask turn). */
  ready: ProjectToolSet | null;
  until: number;
  bytes: number;
  /** Whose share it is held in. */
  workspace: string;
}

/** The upstream tools a project's read offers, under their listed names, each called through `forward`. */
export function upstreamToolsOf(read: ProjectUpstreams, forward: ToolSetDeps['forward']): Map<string, RegisteredTool> {
  const byName = new Map(read.upstreams.map((u) => [u.name, u]));
  const tools = new Map<string, RegisteredTool>();
  for (const row of read.tools) {
    const upstream = byName.get(row.upstream);
    const name = listedName(row.upstream, row.name);
    if (!upstream || !name || !offered(row)) continue;
    // The upstream's schema, checked at its top level only (argument-check.ts): nothing is compiled.
    const check = topLevelCheck(row.descriptor.inputSchema);
    tools.set(name, { def: definition(name, row, forward(upstream, row.name)), policy: policyOf(name, row), check });
  }
  return tools;
}

/** Offered: on, and not gone from the upstream (a changed tool is offered as it was). */
const offered = (row: UpstreamTool) => row.policy.enabled && (row.state === 'listed' || row.state === 'changed');

function policyOf(name: string, row: UpstreamTool): ToolPolicy {
  return {
    name,
    level: row.policy.level,
    plan: row.policy.plan,
    surfaces: row.policy.surfaces,
    agents: row.policy.agents,
    countsAsQuery: row.policy.countsAsQuery,
    ...(row.policy.cost === undefined ? {} : { cost: row.policy.cost }),
    ...(row.policy.approval ? { approval: row.policy.approval } : {}),
    endpoints: ['project'],
    summary: summaryOf(row.descriptor),
  };
}

/** The first line of the tool's title, else of its description, cut to SUMMARY_LENGTH characters. */
function summaryOf(d: ToolDescriptor): string {
  const line = (d.title ?? d.description).split(/[\r\n]/, 1)[0] ?? '';
  const cut = line.slice(0, SUMMARY_LENGTH);
  // A character of two UTF-16 units is not cut in half.
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

function definition(name: string, row: UpstreamTool, call: Call): RegisteredTool['def'] {
  const d = row.descriptor;
  return {
    name,
    title: d.title ?? row.name,
    description: d.description,
    inputSchema: d.inputSchema,
    ...(d.outputSchema ? { outputSchema: d.outputSchema } : {}),
    ...(d.annotations ? { annotations: d.annotations as RegisteredTool['def']['annotations'] & object } : {}),
    selfTimed: true,
    call,
  };
}

/**
 * The gateway's side of a project's upstream servers (docs/upstream-servers.md): the service (the
 * store, discovery, the token signer, which the management layer is given too) and, once the
 * built-in tools are made, the tool sets whose calls are forwarded.
 */
export function gatewayUpstreams(deps: {
  config: Config;
  redis: Redis;
  accounts: Accounts;
  logger: Logger;
  now: () => number;
  /** Each exchange with an upstream, for the outbound histogram (docs/operations.md "Latency histograms"). */
  observe?: (status: number | null, seconds: number) => void;
}) {
  const { config, logger, now } = deps;
  const upstreams = createUpstreams({
    redis: deps.redis,
    pepper: config.keyPepper,
    issuer: config.baseUrl,
    allowedPrivate: config.upstreamAllowedPrivate,
    now,
    ...(deps.observe ? { observe: deps.observe } : {}),
  });
  const forwardDeps = {
    upstreams,
    breakers: new Breakers(now),
    logger,
    onListChanged: (upstream: Upstream, workspace: string) => toolSets.listChanged(upstream, workspace),
  };
  const flag = async (workspace: string, { upstream, flagged }: UpstreamView) => {
    await deps.accounts.audit.record({
      workspace,
      actor: 'svc',
      action: 'upstream.tools_changed',
      target: `upstream:${upstream.name} (${new URL(upstream.url).origin})`,
      source: 'svc',
      requestId: 'refresh',
      detail: { project: upstream.project, tools: (flagged ?? []).join(' ') },
    });
  };
  let toolSets: ProjectToolSets;
  return {
    upstreams,
    /** The project tool sets over the built-in `registry`. */
    toolSetsOver(registry: ToolRegistry): ProjectToolSets {
      toolSets = projectToolSets({ registry, upstreams, logger, now, flag, forward: (u, tool) => forwarder(forwardDeps, u, tool) });
      return toolSets;
    },
  };
}
