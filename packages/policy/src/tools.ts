/**
 * The one tool policy table (docs/contract.md "Surfaces and tool policy"). tools/list,
 * tools/call, svc_help, the REST API and the docs all read it; nothing else decides who may call
 * a tool.
 */
import type { Plan } from './plans.ts';
import { planAtLeast } from './plans.ts';
import type { Role, Surface } from './levels.ts';
import { SURFACES, roleAtLeast } from './levels.ts';
import type { ApprovalRule } from './approvals.ts';

export type Endpoint = 'project' | 'team';
/** NONE: any authenticated caller, role NONE included. SERVICE_ACCOUNT: only bot keys. */
export type LevelRequirement = Role | 'SERVICE_ACCOUNT';

export interface ArgumentPlanGate {
  argument: string;
  values: readonly string[];
  plan: Plan;
}

export interface ToolPolicy {
  name: string;
  level: LevelRequirement;
  plan: Plan;
  surfaces: readonly Surface[];
  /** Needs the workspace's Agents entitlement. */
  agents: boolean;
  /** Counts as one monthly query when called. */
  countsAsQuery: boolean;
  /**
   * Tokens a call spends of its caller's tool budget per minute (`agentTools` in `@svc/limits`
   * BUCKETS; docs/operations.md "Limits for agents"); absent: 1.
   */
  cost?: number;
  endpoints: readonly Endpoint[];
  /** Plan needed for some argument values (svc_search's semantic and hybrid modes). */
  argumentPlans?: readonly ArgumentPlanGate[];
  /** Whether a call waits for an admin's approval before it runs (docs/approvals.md); absent: `none`. */
  approval?: ApprovalRule;
  summary: string;
}

const ALL = SURFACES;
const PROJECT = ['project'] as const;

export const TOOL_POLICIES: readonly ToolPolicy[] = [
  {
    name: 'svc_help',
    level: 'NONE',
    plan: 'FREE',
    surfaces: ALL,
    agents: false,
    countsAsQuery: false,
    endpoints: ['project', 'team'],
    summary: 'What this caller can call here, and what else exists',
  },
  {
    name: 'svc_request_access',
    level: 'NONE',
    plan: 'FREE',
    surfaces: ALL,
    agents: false,
    countsAsQuery: false,
    endpoints: PROJECT,
    summary: "Ask the project's admins for an access level",
  },
  {
    name: 'svc_approval_status',
    level: 'NONE',
    plan: 'FREE',
    surfaces: ALL,
    agents: false,
    countsAsQuery: false,
    endpoints: PROJECT,
    summary: "Follow a call that waits for an admin's approval, and fetch its answer once it ran",
  },
  {
    name: 'svc_context_query',
    level: 'VIEWER',
    plan: 'FREE',
    surfaces: ALL,
    agents: false,
    countsAsQuery: true,
    endpoints: PROJECT,
    summary: 'The most relevant sections for a query, within a token budget',
  },
  {
    name: 'svc_ask',
    level: 'VIEWER',
    plan: 'FREE',
    surfaces: ALL,
    agents: false,
    countsAsQuery: true,
    endpoints: PROJECT,
    summary: 'Passages that answer a question, with citations',
  },
  {
    name: 'svc_search',
    level: 'VIEWER',
    plan: 'FREE',
    surfaces: ALL,
    agents: false,
    countsAsQuery: true,
    endpoints: PROJECT,
    argumentPlans: [{ argument: 'mode', values: ['semantic', 'hybrid'], plan: 'PRO' }],
    summary: 'Search the project documents (keyword; semantic and hybrid on PRO)',
  },
  {
    name: 'svc_recall',
    level: 'VIEWER',
    plan: 'PRO',
    surfaces: ALL,
    agents: false,
    countsAsQuery: true,
    endpoints: PROJECT,
    summary: 'Recall project memories',
  },
  {
    name: 'svc_inject',
    level: 'EDITOR',
    plan: 'FREE',
    surfaces: ALL,
    agents: false,
    countsAsQuery: true,
    endpoints: PROJECT,
    summary: "Add context to the caller's session",
  },
  {
    name: 'svc_upload_document',
    level: 'EDITOR',
    plan: 'FREE',
    surfaces: ALL,
    agents: false,
    countsAsQuery: true,
    endpoints: PROJECT,
    summary: 'Upload or replace a document',
  },
  {
    name: 'svc_remember',
    level: 'EDITOR',
    plan: 'PRO',
    surfaces: ['companion', 'orchestrator'],
    agents: true,
    countsAsQuery: true,
    endpoints: PROJECT,
    summary: 'Store a project memory',
  },
  {
    name: 'svc_swarm_create',
    level: 'ADMIN',
    plan: 'TEAM',
    surfaces: ALL,
    agents: true,
    countsAsQuery: true,
    endpoints: PROJECT,
    summary: 'Create an agent swarm',
  },
  {
    name: 'svc_claim',
    level: 'ADMIN',
    plan: 'TEAM',
    surfaces: ALL,
    agents: true,
    countsAsQuery: true,
    endpoints: PROJECT,
    summary: 'Claim, renew or release an exclusive lease on a resource',
  },
  {
    name: 'svc_htask_create',
    level: 'ADMIN',
    plan: 'TEAM',
    surfaces: ['orchestrator'],
    agents: false,
    countsAsQuery: true,
    endpoints: PROJECT,
    summary: 'Create a task in a hierarchy',
  },
  {
    name: 'svc_multi_project_query',
    level: 'SERVICE_ACCOUNT',
    plan: 'TEAM',
    surfaces: ALL,
    agents: false,
    countsAsQuery: true,
    endpoints: ['team'],
    summary: 'Query every project the service account is granted in its team',
  },
];

const BY_NAME = new Map(TOOL_POLICIES.map((p) => [p.name, p]));

export function toolPolicy(name: string): ToolPolicy | undefined {
  return BY_NAME.get(name);
}

/** Who is calling, as far as the policy cares. */
export interface CallerContext {
  /** Effective role on the project called (service accounts: their grant; team endpoint: NONE). */
  role: Role;
  /** The person's own role when an OAuth token's scope lowered `role` (scopes.ts). */
  unscopedRole?: Role;
  serviceAccount: boolean;
  plan: Plan;
  agents: boolean;
  surface: Surface;
  endpoint: Endpoint;
}

export type Gate = 'endpoint' | 'level' | 'plan' | 'surface' | 'entitlement';

/**
 * Whether the caller can remedy a refusal by each gate (docs/errors.md "Structured denials"): a
 * level is asked of the project's admins (svc_request_access), so its refusal is `available`;
 * the endpoint, surface, plan and entitlement say what this project or workspace offers, so for
 * this caller the refusal is final (`unavailable`) until the project or its plan changes.
 */
export const GATE_REMEDIATION = {
  endpoint: 'unavailable',
  level: 'available',
  surface: 'unavailable',
  plan: 'unavailable',
  entitlement: 'unavailable',
} as const satisfies Record<Gate, 'available' | 'unavailable'>;

export type Decision = { allowed: true } | { allowed: false; gate: Gate; needed: string; have: string };

/** Whether a caller may call a tool here; arguments are checked when given (argument plan gates). */
export function evaluate(policy: ToolPolicy, caller: CallerContext, args?: Record<string, unknown>): Decision {
  if (!policy.endpoints.includes(caller.endpoint)) {
    return { allowed: false, gate: 'endpoint', needed: policy.endpoints.join(' or '), have: caller.endpoint };
  }
  if (policy.level === 'SERVICE_ACCOUNT') {
    if (!caller.serviceAccount) return { allowed: false, gate: 'level', needed: 'a service account key', have: 'another credential' };
  } else if (!roleAtLeast(caller.role, policy.level)) {
    return { allowed: false, gate: 'level', needed: policy.level, have: caller.role };
  }
  if (!policy.surfaces.includes(caller.surface)) {
    return { allowed: false, gate: 'surface', needed: policy.surfaces.join(' or '), have: caller.surface };
  }
  if (!planAtLeast(caller.plan, policy.plan)) {
    return { allowed: false, gate: 'plan', needed: policy.plan, have: caller.plan };
  }
  if (policy.agents && !caller.agents) {
    return { allowed: false, gate: 'entitlement', needed: 'Agents', have: 'none' };
  }
  if (args) {
    for (const gate of policy.argumentPlans ?? []) {
      const value = args[gate.argument];
      if (typeof value === 'string' && gate.values.includes(value) && !planAtLeast(caller.plan, gate.plan)) {
        return { allowed: false, gate: 'plan', needed: gate.plan, have: caller.plan };
      }
    }
  }
  return { allowed: true };
}

/** One sentence naming the gate that refused a call and what would open it. */
export function describeRefusal(tool: string, d: Exclude<Decision, { allowed: true }>): string {
  switch (d.gate) {
    case 'endpoint':
      return `${tool} is only available on the ${d.needed} endpoint`;
    case 'level':
      return `${tool} needs ${d.needed === 'a service account key' ? d.needed : `the ${d.needed} access level`}; this credential has ${d.have}`;
    case 'plan':
      return `${tool} needs the ${d.needed} plan or higher; this workspace is on ${d.have}`;
    case 'surface':
      return `${tool} is only available on the ${d.needed} surface; this session is ${d.have}`;
    case 'entitlement':
      return `${tool} needs the Agents entitlement, which this workspace does not have`;
  }
}
