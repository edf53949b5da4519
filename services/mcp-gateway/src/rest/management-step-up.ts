/**
 * Step-up over REST (docs/auth-service.md "Step-up"): creating or rolling an ADMIN key, creating a
 * service account or giving it a new key, client keys or ADMIN, setting a member's role and changing
 * single sign-on settings need a second factor used within minutes. A token (a personal key,
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

type Action = (params: Params, body: Record<string, unknown>, accounts: Accounts) => string | null | Promise<string | null>;

const keysPage = (params: Params) => `/dashboard/projects/${params['project']}/keys`;
const botsPage = (params: Params) => `/dashboard/workspaces/${params['workspace']}/service-accounts`;

/**
 * The step-up actions, each with the dashboard page doing it (for the refusal to name), or null when
 * this request is not one: whatever mints an ADMIN credential, or one for a service account.
 */
const STEP_UP_ACTIONS: Partial<Record<ManagementRoute['id'], Action>> = {
  createKey: (params, body) => (body['level'] === 'ADMIN' ? keysPage(params) : null),
  // A roll makes a new key at the old one's level.
  rollKey: async (params, _body, accounts) =>
    (await accounts.keys.getById(params['id'] ?? ''))?.level === 'ADMIN' ? keysPage(params) : null,
  createServiceAccount: botsPage,
  rotateServiceAccount: botsPage,
  setServiceAccountClientKeys: botsPage,
  grantServiceAccount: (params, body) => (body['level'] === 'ADMIN' ? botsPage(params) : null),
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
    const page = (await STEP_UP_ACTIONS[route.id]?.(ex.params, (ex.body ?? {}) as Record<string, unknown>, accounts)) ?? null;
    if (!page) return;
    const user = await accounts.users.get(actor.userId);
    if (!user || !((await accounts.factors.hasAny(user.id)) || (await accounts.factors.requiredFor(user)))) return;
    throw new SvcError('step_up_required', {
      message: `Step-up required: this needs a second factor used within minutes; do it on the dashboard (${page})`,
      data: { page },
    });
  };
}
