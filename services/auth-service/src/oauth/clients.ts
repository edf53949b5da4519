/**
 * The first-party clients as oidc-provider's static clients, built from the profile table of
 * @svc/accounts (docs/auth-service.md "Client profiles"). All are public clients of the device
 * grant (RFC 8628); a profile that issues project tokens may also refresh them.
 */
import { CLIENT_PROFILES, isFirstPartyClient, type ClientProfile, type FirstPartyClientId } from '@svc/accounts';
import type { ClientMetadata } from 'oidc-provider';
import { JWT_BEARER_GRANT } from './id-jag.ts';
import { WORKLOAD_CLIENT_ID } from './workload-identity.ts';

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export type ProfileId = FirstPartyClientId;

/** True for the client id of a first-party profile. */
export const isProfile = isFirstPartyClient;

/** The name a first-party profile is shown by. */
export function profileName(id: ProfileId): string {
  return CLIENT_PROFILES[id].name ?? id;
}

/** Whether a profile's tokens come with a refresh token (a personal key has none). */
export function refreshesTokens(profile: ClientProfile): boolean {
  return profile.issues === 'project-tokens';
}

/**
 * The profiles' clients, and the public client of workload identity federation
 * (docs/workload-identity.md "The exchange"): a workload holds no secret, its token is the proof,
 * and the only grant it may use is `jwt-bearer`.
 */
export function staticClients(): ClientMetadata[] {
  const profiles: ClientMetadata[] = Object.entries(CLIENT_PROFILES).map(([id, profile]) => ({
    client_id: id,
    client_name: profileName(id as ProfileId),
    token_endpoint_auth_method: 'none',
    grant_types: refreshesTokens(profile) ? [DEVICE_GRANT, 'refresh_token'] : [DEVICE_GRANT],
    response_types: [],
    redirect_uris: [],
  }));
  const workload: ClientMetadata = {
    client_id: WORKLOAD_CLIENT_ID,
    client_name: 'Workload identity federation',
    token_endpoint_auth_method: 'none',
    grant_types: [JWT_BEARER_GRANT],
    response_types: [],
    redirect_uris: [],
  };
  return [...profiles, workload];
}
