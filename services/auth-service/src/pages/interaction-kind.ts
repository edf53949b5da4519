/**
 * What an interaction asks for (docs/contract.md "Client profiles"): which consent page it gets,
 * and where its answer goes.
 */
import { clientProfile } from '@svc/accounts';
import type Provider from 'oidc-provider';

export type Details = Awaited<ReturnType<Provider['interactionDetails']>>;
export type Kind = 'personal' | 'provision' | 'approve' | 'select';

export function kindOf(details: Details): Kind {
  const params = details.params as Record<string, unknown>;
  const profile = clientProfile(params['client_id']);
  if (profile.issues === 'personal-key') return 'personal';
  if (profile.autoProvision && String(params['auto_provision']) === 'true') return 'provision';
  return typeof params['resource'] === 'string' ? 'approve' : 'select';
}

/** The redirect URI's host, or the private-use scheme of a native app (RFC 8252 §7.1). */
export function redirectHostOf(uri: unknown): string | undefined {
  const u = typeof uri === 'string' ? URL.parse(uri) : null;
  return u ? u.host || u.protocol.slice(0, -1) : undefined;
}
