/**
 * The rules of a management operation, declared on the operation (docs/security.md "Rules on the
 * operation"): who may call it, whether it needs a recent second factor or a confirmed address,
 * what it records in the audit log (and so which webhook event it causes), the bucket it counts in,
 * and the workspace-level setting it creates. Every door (REST, dashboard, CLI, svc-admin) reaches
 * the operation through the management layer, which applies these rules before the operation runs
 * (rules.ts); the tests that prove it are generated from the same declarations.
 */
import type { AuditAction } from '@svc/accounts/audit-actions.ts';

/**
 * Who may call it: any member of the project (`member`), a member whose role creates keys
 * (`editor`), the project's admins (`admin`), the workspace's owner (`owner`), the person for their
 * own account (`self`), or whoever holds the value the call is about (`holder`: a leaked key).
 * The operation checks it where it finds the project or workspace; the generated tests prove a
 * caller below it is refused.
 */
export type Caller = 'member' | 'editor' | 'admin' | 'owner' | 'self' | 'holder';

/**
 * A workspace-level setting: something made in a workspace that keeps acting after the person who
 * made it is gone (a trust, a destination for data, a credential, an open invitation). An account
 * whose address is not confirmed makes none of them, and when the address's real owner takes the
 * account over (an SSO sign-in that proves it), every one the workspace holds is removed
 * (docs/security.md "Unproven addresses"). Each kind has its remover (takeover.ts), kept exhaustive
 * by its type, so a kind declared later is removed the day it is declared.
 */
export const WORKSPACE_SETTINGS = [
  'sso',
  'webhook',
  'trusted-issuer',
  'workload-issuer',
  'client-keys',
  'invitation',
  'upstream',
  'scim',
] as const;
export type WorkspaceSetting = (typeof WORKSPACE_SETTINGS)[number];

interface PolicyBase {
  readonly caller: Caller;
  /**
   * `always`: the call needs a second factor used within STEP_UP_MINUTES by a person who has one,
   * or whose workspace requires one (docs/security.md "Step-up" says which operations and why).
   */
  readonly stepUp: 'always' | 'never';
  /** What the call records in the workspace's audit log (none for a read); webhook events follow from it. */
  readonly audit: readonly AuditAction[];
  /** `management`: counted in the workspace's management bucket; `none`: never limited (a leak report). */
  readonly bucket: 'management' | 'none';
}

/** A call that creates a workspace-level setting needs a confirmed address: the type says so. */
export type OperationPolicy = PolicyBase &
  ({ readonly confirmed: true; readonly setting: WorkspaceSetting } | { readonly confirmed: boolean; readonly setting?: undefined });

/** A read: any caller the operation admits, no factor, nothing recorded. */
export const READ = (caller: Caller) => ({ caller, stepUp: 'never', confirmed: false, audit: [], bucket: 'management' }) as const;

/** How recent a second factor must be for a call whose policy says `stepUp: 'always'`. */
export const STEP_UP_MINUTES = 10;
