/**
 * Home-realm discovery (docs/auth-service.md "Single sign-on"): which way an address typed on the
 * sign-in page signs in. An address at a domain a workspace proved, with its provider set up, goes
 * to that provider when the person asks for SSO or leaves the password empty; with the policy
 * "members must use SSO" its password is refused. Every other address signs in with its password.
 */
import type { SsoStore } from '@svc/sso';

export type AddressRoute =
  | { kind: 'password' }
  | { kind: 'provider'; workspace: string }
  | { kind: 'refused'; refusal: 'invalid_form' | 'forbidden'; message: string };

export async function routeOfAddress(
  store: SsoStore,
  input: { email: string; passwordGiven: boolean; ssoAsked: boolean },
): Promise<AddressRoute> {
  const at = input.email.lastIndexOf('@');
  const domain = at > 0 ? input.email.slice(at + 1) : '';
  const workspace = domain ? await store.ownerOf(domain) : null;
  const settings = workspace ? await store.settings(workspace) : null;
  if (!workspace || !settings) {
    if (!input.ssoAsked) return { kind: 'password' };
    const what = domain ? `addresses at ${domain}` : 'this address';
    return { kind: 'refused', refusal: 'invalid_form', message: `No single sign-on is set up for ${what}. Sign in with your password.` };
  }
  if (input.ssoAsked || !input.passwordGiven) return { kind: 'provider', workspace };
  if (settings.required) {
    return {
      kind: 'refused',
      refusal: 'forbidden',
      message: `Members at ${domain} sign in through their company's sign-in, not with a password. Choose "Continue with single sign-on".`,
    };
  }
  return { kind: 'password' };
}
