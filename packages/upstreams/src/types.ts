/** A project's upstream MCP server and its tools, as svc keeps them (docs/upstream-servers.md). */
import type { ApprovalRule, KeyLevel, Plan, Surface } from '@svc/policy';

/** Which MCP revision an upstream speaks: `modern` 2026-07-28 (stateless), `legacy` 2025-11-25 and earlier (initialize). */
export type UpstreamEra = 'modern' | 'legacy';

export interface Upstream {
  name: string;
  project: string;
  /** Its Streamable HTTP endpoint, exactly as registered: the forwarded token's audience. */
  url: string;
  timeoutMs: number;
  /** A static credential sent with every request (a header and its value, sealed); null: none. */
  credential: { header: string; sealed: string } | null;
  era: UpstreamEra | null;
  /** The protocol version the upstream agreed to. */
  protocolVersion: string | null;
  addedAt: number;
  /** Who registered it (an audit actor's label). */
  addedBy: string;
  /** When its tools were last read, and what went wrong then (null: nothing). */
  refreshedAt: number | null;
  problem: string | null;
}

/** What an upstream says of one tool (MCP "Tool"): kept as it said it, bounded. */
export interface ToolDescriptor {
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** Who may call an upstream tool: the columns of a built-in tool's row (@svc/policy), and whether it is on. */
export interface UpstreamToolPolicy {
  level: KeyLevel;
  plan: Plan;
  surfaces: Surface[];
  agents: boolean;
  countsAsQuery: boolean;
  /** Tokens a call spends of its caller's tool budget (docs/operations.md "Limits for agents"); absent on rows written before it: 1. */
  cost?: number;
  enabled: boolean;
  /** Whether a call waits for an admin's approval (docs/approvals.md); absent on rows written before it: `none`. */
  approval?: ApprovalRule;
}

/**
 * `listed`: offered under its row. `new`: appeared after the upstream was registered; off until an
 * admin turns it on. `changed`: the upstream changed its schema or annotations; offered as it was
 * until an admin accepts the change. `missing`: the upstream no longer lists it; not offered.
 */
export type ToolState = 'listed' | 'new' | 'changed' | 'missing';

export interface UpstreamTool {
  upstream: string;
  /** The tool's name at the upstream. */
  name: string;
  descriptor: ToolDescriptor;
  /** The change waiting for an admin (state `changed`). */
  pending: ToolDescriptor | null;
  policy: UpstreamToolPolicy;
  state: ToolState;
  firstSeen: number;
  /** When the upstream stopped listing it (state `missing`); absent on rows written before it. */
  missingSince?: number;
}

/**
 * A project's own setting for one of svc's built-in tools (docs/approvals.md "The rule"): the
 * built-in row stays svc's (TOOL_POLICIES); the project's admins choose only whether its calls wait
 * for an approval. Absent: the built-in row's own rule.
 */
export interface BuiltinToolSetting {
  tool: string;
  approval: ApprovalRule;
  setAt: number;
  /** Who set it (an audit actor's label). */
  setBy: string;
}

/** A project's upstreams and their tools, and its settings of built-in tools, as one read gives them. */
export interface ProjectUpstreams {
  upstreams: Upstream[];
  tools: UpstreamTool[];
  builtins: BuiltinToolSetting[];
  /** The tool rows' size as stored (characters of their JSON): what holding them in memory is charged. */
  toolBytes: number;
}
