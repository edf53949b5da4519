/**
 * Step-up over REST (docs/auth-service.md "Step-up"): creating an ADMIN key or a service account,
 * setting a member's role and changing single sign-on settings need a second factor used within minutes. A token (a personal key,
 * an OAuth token) carries no recent second factor, so a person who has one, or whose workspace
 * requires one, is refused with `step_up_required` naming the dashboard page that does the same
 * after the factor. A person with neither passes, as on the dashboard; project keys are keys, not
 * people, and are governed by their level.
 */
import type { Accounts } from '@svc/accounts';
import { SvcError } from '@svc/errors';
import type { Step } from '../pipeline/exchange.ts';
import type { ManagementRoute } from './management-routes.ts';

type Params = Record<string, string>;

/** The step-up actions, each with the dashboard page doing it (for the refusal to name), or null when this request is not one. */
const STEP_UP_ACTIONS: Partial<Record<ManagementRoute['id'], (params: Params, body: Record<string, unknown>) => string | null>> = {
  createKey: (params, body) => (body['level'] === 'ADMIN' ? `/dashboard/projects/${params['project']}/keys` : null),
  createServiceAccount: (params) => `/dashboard/workspaces/${params['workspace']}/service-accounts`,
  putMember: (params) => `/dashboard/projects/${params['project']}/members`,
  ...Object.fromEntries(
    (['configureSsoProvider', 'setSsoPolicy', 'claimSsoDomain', 'verifySsoDomain', 'releaseSsoDomain'] as const).map((id) => [
      id,
      (params: Params) => `/dashboard/workspaces/${params['workspace']}/sso`,
    ]),
  ),
};

export function managementStepUp(accounts: Accounts, route: ManagementRoute): Step {
  return async function managementStepUpStep(ex) {
    const actor = ex.actor;
    if (actor?.kind !== 'person') return;
    const page = STEP_UP_ACTIONS[route.id]?.(ex.params, (ex.body ?? {}) as Record<string, unknown>) ?? null;
    if (!page) return;
    const user = await accounts.users.get(actor.userId);
    if (!user || !((await accounts.factors.hasAny(user.id)) || (await accounts.factors.requiredFor(user)))) return;
    throw new SvcError('step_up_required', {
      message: `Step-up required: this needs a second factor used within minutes; do it on the dashboard (${page})`,
      data: { page },
    });
  };
}
