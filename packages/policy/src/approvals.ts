/**
 * Approval-gated tools (docs/approvals.md): a tool's policy row may say that a call needs a person's
 * approval before it runs. The rule is a field of the row, as its level and plan are.
 */
import type { KeyLevel, Role } from './levels.ts';
import { isKeyLevel, roleAtLeast } from './levels.ts';

/**
 * `none`: calls run at once. `all`: every call waits for an admin's approval. `agents`: calls made
 * with an OAuth token of a client other than svc's own first-party ones wait (an API key or a
 * first-party client's token runs at once). `below:<LEVEL>`: calls by a caller whose level on the
 * project is below LEVEL wait.
 */
export type ApprovalRule = 'none' | 'all' | 'agents' | `below:${KeyLevel}`;

/** Every rule a row may hold, in the order the docs list them. */
export const APPROVAL_RULES = [
  'none',
  'all',
  'agents',
  'below:VIEWER',
  'below:EDITOR',
  'below:ADMIN',
] as const satisfies readonly ApprovalRule[];

export function isApprovalRule(value: unknown): value is ApprovalRule {
  return typeof value === 'string' && (APPROVAL_RULES as readonly string[]).includes(value);
}

/** What the rule reads of a call: the caller's level and whether an unvouched-for OAuth client made it. */
export interface ApprovalCaller {
  role: Role;
  /** True for an OAuth token issued to a client other than svc's first-party ones. */
  thirdPartyClient: boolean;
}

/** Whether a call by `caller` must wait for an approval under `rule` (absent: `none`). */
export function approvalNeeded(rule: ApprovalRule | undefined, caller: ApprovalCaller): boolean {
  if (rule === undefined || rule === 'none') return false;
  if (rule === 'all') return true;
  if (rule === 'agents') return caller.thirdPartyClient;
  const level = rule.slice('below:'.length);
  return isKeyLevel(level) && !roleAtLeast(caller.role, level);
}

/**
 * Whether a project's admins may make calls of a tool wait (docs/approvals.md "The rule"): not a
 * tool any caller may call (level NONE: help, asking for access, following an approval), since a
 * caller needs those to find their way, and following an approval cannot itself wait for one.
 */
export function approvalSettable(row: { readonly level: string }): boolean {
  return row.level !== 'NONE';
}
