/**
 * What a tool is to the gateway. Each tool is one module `src/tools/<name>.ts` exporting a factory
 * that takes its dependencies and returns a ToolDefinition. Its `inputSchema` is both what
 * tools/list publishes and what ajv enforces before `call` runs, so `call` receives valid args.
 * Who may call it is decided by the policy table (@svc/policy), never here.
 */
import type { Accounts, Redis } from '@svc/accounts';
import type { Embedder } from '@svc/knowledge';
import type { Logger } from '@svc/logger';
import type { Plan, Role, Surface } from '@svc/policy';

/** What the tool factories are given (createTools in ./index.ts). */
export interface ToolDeps {
  redis: Redis;
  accounts: Accounts;
  logger: Logger;
  /** Semantic search's embedder (EMBEDDINGS_URL); absent, the built-in local one. */
  embedder?: Embedder;
}

export interface ToolContent {
  type: 'text';
  text: string;
}

export interface ToolResult {
  content: ToolContent[];
  structuredContent?: Record<string, unknown>;
  /** A failure the model should see and correct (bad argument values, a lease held by another). */
  isError?: boolean;
}

/** Who is calling and where, as the tool sees it. */
export interface ToolCaller {
  /** user: personal key or OAuth token; key: project key; bot: service account key. */
  type: 'user' | 'key' | 'bot';
  /** User id, API key id or bot id. */
  id: string;
  /** Safe to show: an email, a key name with its prefix, a bot name. */
  label: string;
  role: Role;
  /** A service account key (svc-bot-, or a legacy rlm_team_ key on the team endpoint). */
  serviceAccount: boolean;
  plan: Plan;
  agents: boolean;
  surface: Surface;
  /** Project called (project endpoint); null on the team endpoint. */
  project: string | null;
  /** Workspace owning the project, or the team of the team endpoint. */
  workspace: string;
  /** Team endpoint: projects the service account is granted in that team. */
  grantedProjects: string[];
  /**
   * The caller's session: the Mcp-Session-Id header when the client sent one, else one per
   * credential (key id or OAuth grant), so svc_inject context follows the client.
   */
  sessionId: string;
}

export interface ToolDefinition<Args = Record<string, unknown>> {
  name: string;
  title: string;
  description: string;
  /** JSON Schema (draft 2020-12 compatible subset) of the arguments object. */
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  call(args: Args, caller: ToolCaller): Promise<ToolResult>;
}

/** Thrown by a tool for a failure the caller should read as an isError result. */
export class ToolFailure extends Error {
  override name = 'ToolFailure';
}

export function text(s: string, structured?: Record<string, unknown>): ToolResult {
  return structured ? { content: [{ type: 'text', text: s }], structuredContent: structured } : { content: [{ type: 'text', text: s }] };
}
