/**
 * What a tool is to the gateway. Each tool is one module `src/tools/<name>.ts` exporting a factory
 * that takes its dependencies and returns a ToolDefinition. Its `inputSchema` is both what
 * tools/list publishes and what ajv enforces before `call` runs, so `call` receives valid args.
 * Who may call it is decided by the policy table (@svc/policy), never here.
 */
import type { Accounts, Redis, RequestOutcome } from '@svc/accounts';
import type { Embedder } from '@svc/knowledge';
import type { Logger } from '@svc/logger';
import type { Plan, Role, Surface, ToolPolicy } from '@svc/policy';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

/** What the tool factories are given (createTools in ./index.ts). */
export interface ToolDeps {
  /** The knowledge tools' connection, apart from the request path's (docs/knowledge-tools.md "Event-loop budget"). */
  redis: Redis;
  accounts: Accounts;
  logger: Logger;
  /** Semantic search's embedder (EMBEDDINGS_URL); absent, the built-in local one. */
  embedder?: Embedder;
  /** Tells the project's admins of a request when it is due a mail; says whether they were mailed. */
  onAccessRequested?: (request: RequestOutcome) => Promise<{ mailed: boolean }>;
  /** svc_approval_status's work (methods/approvals.ts); absent, the tool is not offered. */
  collectApproval?: (id: string, caller: ToolCaller, beside: ToolsBeside | undefined) => Promise<ToolResult>;
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
  /** The person's own role on the project when an OAuth token acts below it (its approved level or scope). */
  ownRole?: Role;
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
  /** Where the request came from, for audit entries a tool writes (docs/audit.md "An entry"). */
  origin: { source: string; requestId: string };
  /** The OAuth client the token was issued to, or `svc-key:<key id>` for an API key. */
  clientId: string;
  /**
   * Where the call's progress goes when its caller asked for it (MCP 2025-11-25 "Progress": a
   * progressToken, and an answer it can take as an event stream); a tool that reports none ignores it.
   */
  progress?: ProgressSink;
}

/** One progress update of a call, relayed to its caller as notifications/progress (with the caller's token). */
export type ProgressSink = (update: { progress: number; total?: number; message?: string }) => void;

/** A tool as the registry holds it; tools are written with defineTool, which types `call`'s args. */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  /** JSON Schema (draft 2020-12 compatible subset) of the arguments object. */
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  /** The tool bounds its own time (a forwarded call: its upstream's timeout), instead of the gateway's tool budget. */
  selfTimed?: boolean;
  /**
   * The call reads the project's tools beside the built-in ones (svc_help lists them): the
   * project's tool set is loaded for it, and `call` is given it as `beside`.
   */
  readsToolSet?: boolean;
  call(args: Record<string, unknown>, caller: ToolCaller, beside?: ToolsBeside): Promise<ToolResult>;
}

/**
 * A project's tools beside the built-in ones (its upstream servers' tools, under their listed
 * names: docs/upstream-servers.md "Names"), each with its policy row; empty for the built-in set.
 */
export interface ToolsBeside {
  readonly upstreamTools: ReadonlyMap<string, { def: ToolDefinition; policy: ToolPolicy }>;
}

/** The JSON Schema of a tool's arguments: an object schema (fragments shared between tools are `as const`). */
export type ArgsSchema = Extract<JSONSchema, object> & { readonly type: 'object' };

/**
 * The arguments `call` receives for a schema. ajv (useDefaults, ./registry.ts) fills every
 * property that has a `default` before `call` runs, so those are typed as present
 * (keepDefaultedPropertiesOptional: false, stated rather than left to the library's default).
 */
export type ToolArgs<S extends ArgsSchema> = FromSchema<S, { keepDefaultedPropertiesOptional: false }>;

/** A tool definition whose `call` takes `A`, the arguments its own inputSchema describes. */
export interface TypedToolDefinition<S extends ArgsSchema, A = ToolArgs<S>> extends Omit<ToolDefinition, 'inputSchema' | 'call'> {
  inputSchema: S;
  call(args: A, caller: ToolCaller, beside?: ToolsBeside): Promise<ToolResult>;
}

/**
 * Declares a tool with its schema written once: the const type parameter keeps the literal schema
 * type, from which `call`'s argument type is derived. The schema object itself is published as is.
 * `A` is a defaulted parameter rather than ToolArgs<S> inline: json-schema-to-ts's advice for
 * generics, which keeps tsc from "Type instantiation is excessively deep" (TS2589).
 */
export function defineTool<const S extends ArgsSchema, A = ToolArgs<S>>(def: TypedToolDefinition<S, NoInfer<A>>): ToolDefinition {
  // Only the type changes: the registry validates args against inputSchema (and fills its
  // defaults) before `call` runs, so what `call` is given is ToolArgs<S>.
  return def as unknown as ToolDefinition;
}

/** Thrown by a tool for a failure the caller should read as an isError result. */
export class ToolFailure extends Error {
  override name = 'ToolFailure';
}

export function text(s: string, structured?: Record<string, unknown>): ToolResult {
  return structured ? { content: [{ type: 'text', text: s }], structuredContent: structured } : { content: [{ type: 'text', text: s }] };
}
