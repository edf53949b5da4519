/** Plans and their limits (docs/contract.md "Plans and limits"). */
export const PLANS = ['FREE', 'SOLO', 'PRO', 'TEAM', 'ENTERPRISE'] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanLimits {
  requestsPerMinute: number;
  /** Monthly tools/call count; null means unlimited. */
  monthlyQueries: number | null;
  /** Fair use: the quota is never enforced, only flagged when exceeded. */
  fairUse: boolean;
}

export type RateLimitProfile = 'current' | 'earlier';

const CURRENT: Record<Plan, PlanLimits> = {
  FREE: { requestsPerMinute: 30, monthlyQueries: 1_000, fairUse: false },
  SOLO: { requestsPerMinute: 80, monthlyQueries: 5_000, fairUse: false },
  PRO: { requestsPerMinute: 120, monthlyQueries: 25_000, fairUse: false },
  TEAM: { requestsPerMinute: 300, monthlyQueries: 100_000, fairUse: false },
  ENTERPRISE: { requestsPerMinute: 2_000, monthlyQueries: 500_000, fairUse: true },
};

// The earlier set names no SOLO values; SOLO keeps its current ones there (docs/decisions.md "Rate limits").
const EARLIER: Record<Plan, PlanLimits> = {
  FREE: { requestsPerMinute: 10, monthlyQueries: 100, fairUse: false },
  SOLO: CURRENT.SOLO,
  PRO: { requestsPerMinute: 60, monthlyQueries: 5_000, fairUse: false },
  TEAM: { requestsPerMinute: 100, monthlyQueries: 20_000, fairUse: false },
  ENTERPRISE: { requestsPerMinute: 1_000, monthlyQueries: null, fairUse: true },
};

/**
 * Characters of documents a project and a workspace (all its projects) may store, per plan
 * (docs/knowledge-tools.md "Storage quotas"). A replica holds a project's search index in memory
 * at 3-6.4 bytes a character when its sections average 2,000 characters, as they must in a project
 * this large (10,000 sections at most), so the largest project quota (20 million) costs 60-130 MB, within a replica's 192 MiB index budget;
 * the workspace quota bounds what one customer puts in Redis.
 */
export const STORAGE_QUOTAS: Record<Plan, { projectChars: number; workspaceChars: number }> = {
  FREE: { projectChars: 1_000_000, workspaceChars: 2_000_000 },
  SOLO: { projectChars: 5_000_000, workspaceChars: 10_000_000 },
  PRO: { projectChars: 10_000_000, workspaceChars: 50_000_000 },
  TEAM: { projectChars: 20_000_000, workspaceChars: 200_000_000 },
  ENTERPRISE: { projectChars: 20_000_000, workspaceChars: 1_000_000_000 },
};

/** Limits of a plan under a profile, each multiplied by `scale` (RATE_LIMIT_SCALE). */
export function planLimits(plan: Plan, profile: RateLimitProfile = 'current', scale = 1): PlanLimits {
  const base = (profile === 'earlier' ? EARLIER : CURRENT)[plan];
  return {
    requestsPerMinute: base.requestsPerMinute * scale,
    monthlyQueries: base.monthlyQueries === null ? null : base.monthlyQueries * scale,
    fairUse: base.fairUse,
  };
}

export function isPlan(value: unknown): value is Plan {
  return typeof value === 'string' && (PLANS as readonly string[]).includes(value);
}

export function planAtLeast(plan: Plan, needed: Plan): boolean {
  return PLANS.indexOf(plan) >= PLANS.indexOf(needed);
}

/** Agents entitlement default: on for TEAM and ENTERPRISE (docs/contract.md "Accounts"). */
export function agentsByDefault(plan: Plan): boolean {
  return plan === 'TEAM' || plan === 'ENTERPRISE';
}

/** How much of a workspace's audit log is kept (docs/audit.md "Retention"). */
export interface AuditRetention {
  /** Entries older than this many days are trimmed and never read back. */
  days: number;
  /** The most entries kept, whatever their age: the oldest go first (a hard bound on storage). */
  maxEntries: number;
}

/** Audit retention per plan (docs/audit.md "Retention" says why these values). */
export const AUDIT_RETENTION: Record<Plan, AuditRetention> = {
  FREE: { days: 30, maxEntries: 10_000 },
  SOLO: { days: 90, maxEntries: 50_000 },
  PRO: { days: 180, maxEntries: 100_000 },
  TEAM: { days: 365, maxEntries: 250_000 },
  ENTERPRISE: { days: 365, maxEntries: 1_000_000 },
};
