/**
 * The registered client profiles (docs/contract.md "Client profiles"). All are public clients of the device
 * grant (RFC 8628); svc-cli gets a personal key and no refresh token, the others a project-scoped
 * token pair.
 */
import type { ClientMetadata } from 'oidc-provider';

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export type ProfileId = 'svc-cli' | 'create-svc' | 'svc-mcp' | 'svc-companion';
const PROFILES: readonly ProfileId[] = ['svc-cli', 'create-svc', 'svc-mcp', 'svc-companion'];

export function isProfile(clientId: unknown): clientId is ProfileId {
  return typeof clientId === 'string' && (PROFILES as readonly string[]).includes(clientId);
}

const NAMES: Record<ProfileId, string> = {
  'svc-cli': 'svc command-line tool',
  'create-svc': 'create-svc project setup',
  'svc-mcp': 'svc MCP client',
  'svc-companion': 'svc Companion',
};

/** The name a first-party profile is shown by. */
export function profileName(id: ProfileId): string {
  return NAMES[id];
}

export function staticClients(): ClientMetadata[] {
  return PROFILES.map((id) => ({
    client_id: id,
    client_name: NAMES[id],
    token_endpoint_auth_method: 'none',
    grant_types: id === 'svc-cli' ? [DEVICE_GRANT] : [DEVICE_GRANT, 'refresh_token'],
    response_types: [],
    redirect_uris: [],
  }));
}
