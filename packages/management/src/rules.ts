/**
 * The rules each operation declares (contract/policy.ts), applied by the management layer before
 * the operation runs, for every door alike (docs/security.md "Rules on the operation"). The layer's
 * method of each operation is named by its id, and its arguments after the actor are the
 * operation's path parameters in the order its path names them (docs/management.md "The
 * contract"): so the wrapper below is derived from the table of operations, and a refusal names
 * the dashboard page of the project or workspace the call is about.
 * - `confirmed`: a person whose address is not confirmed is refused (403, naming what to do);
 * - `stepUp: 'always'`: a person who has a second factor, or whose workspace requires one, must
 *   have used it within STEP_UP_MINUTES on this credential's session (a dashboard session records
 *   it; a token carries none), else StepUpRequired naming the dashboard page that does the same;
 * - `stepUp: 'always'` or a `setting`: a delegated token (RFC 8693, an `act` chain) is refused
 *   whatever the person's factors: it is not the person present, and a key, a rolled key, a service
 *   account or a setting it made would outlive it (a delegated token lives an hour at most).
 * A project key is not a person: its level governs it. The operator (svc-admin) is at the server.
 * Who may call (`caller`) is checked by the operation where it finds the project or workspace.
 */
import type { Accounts } from '@svc/accounts';
import { pathParamNames } from './contract/define.ts';
import { MANAGEMENT_OPERATIONS, type OperationId } from './contract/operations.ts';
import { STEP_UP_MINUTES } from './contract/policy.ts';
import { VARIANTS, type Management } from './management-type.ts';
import { ManagementError, StepUpRequired, type Actor } from './types.ts';

/** The dashboard's section of an operation's path (docs/dashboard.md): where a step-up comes back to. */
export const DASHBOARD_SECTIONS: Readonly<Record<string, string | null>> = {
  keys: 'keys',
  members: 'members',
  invitations: 'members',
  'access-requests': 'requests',
  approvals: 'approvals',
  'service-accounts': 'service-accounts',
  'workload-issuers': 'workload-issuers',
  sso: 'sso',
  scim: 'scim',
  webhooks: 'webhooks',
  upstreams: 'upstreams',
  'builtin-tools': 'tools',
  usage: 'usage',
  audit: 'audit',
  // No page of their own: the refusal names the dashboard's front page.
  projects: null,
  'factor-policy': null,
  'trusted-issuers': null,
  'client-policy': 'clients',
  'client-approvals': 'clients',
};

/** The dashboard page doing what `op` does, for the refusal to name. */
function dashboardPageOf(op: OperationId, params: Record<string, string>): string {
  const [, , , scope, , section] = MANAGEMENT_OPERATIONS[op].path.split('/');
  const at = scope === 'projects' ? params['project'] : scope === 'workspaces' ? params['workspace'] : undefined;
  const page = section ? DASHBOARD_SECTIONS[section] : undefined;
  if (!at || !page) return '/dashboard';
  return `/dashboard/${scope}/${encodeURIComponent(at)}/${page}`;
}

export function operationRules(accounts: Accounts, now: () => number) {
  const recentFactor = (actor: Extract<Actor, { kind: 'person' }>) =>
    actor.factorAt !== undefined && now() - actor.factorAt <= STEP_UP_MINUTES * 60_000;

  return {
    /** Refuses the call of `op` by `actor` when a declared rule is not met. */
    async check(op: OperationId, actor: Actor, params: Record<string, string>): Promise<void> {
      if (actor.kind !== 'person') return;
      const { policy, summary } = MANAGEMENT_OPERATIONS[op];
      // A delegated token is never the person present, and what it would make here (a credential,
      // a setting) would outlive it and its parent (docs/security.md "Rules on the operation").
      if (actor.chain?.length && (policy.stepUp === 'always' || 'setting' in policy))
        throw new ManagementError(
          403,
          `A delegated token cannot ${summary}: what it makes would outlive the token. Ask the person to do it themselves.`,
        );
      if (!policy.confirmed && policy.stepUp === 'never') return;
      const user = await accounts.users.get(actor.userId);
      if (!user) throw new ManagementError(403, 'This account is gone.');
      if (policy.confirmed && !user.emailVerifiedAt)
        throw new ManagementError(
          403,
          `Confirm your email address before you ${summary}: open the link we mailed you, or send a new one from your account page.`,
        );
      if (policy.stepUp !== 'always' || recentFactor(actor)) return;
      // Without a factor and with no workspace requiring one there is nothing to step up with
      // (docs/auth-service.md "Step-up").
      if ((await accounts.factors.hasAny(user.id)) || (await accounts.factors.requiredFor(user)))
        throw new StepUpRequired(dashboardPageOf(op, params), STEP_UP_MINUTES);
    },
  };
}

/**
 * The layer with every operation's method (and each of VARIANTS) checked against that operation's
 * rules first. The rules read the call's path parameters: the arguments after the actor, named in
 * the order the operation's path names them.
 */
export function withRules(inner: Management, rules: ReturnType<typeof operationRules>): Management {
  const outer: Record<string, unknown> = { ...inner };
  const methods = Object.keys(MANAGEMENT_OPERATIONS).map((id) => [id, id as OperationId] as const);
  for (const [method, op] of [...methods, ...Object.entries(VARIANTS)]) {
    const run = (inner as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[method]!;
    const names = pathParamNames(MANAGEMENT_OPERATIONS[op].path);
    outer[method] = async (actor: Actor, ...args: unknown[]) => {
      await rules.check(op, actor, Object.fromEntries(names.map((name, i) => [name, String(args[i])])));
      return run(actor, ...args);
    };
  }
  return outer as unknown as Management;
}
