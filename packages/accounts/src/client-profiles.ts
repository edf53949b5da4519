/**
 * The client profiles (docs/contract.md "Client profiles", docs/auth-service.md "Client profiles"):
 * svc's first-party OAuth clients and what sets each apart, plus the one profile every registered
 * (RFC 7591) or Client ID Metadata Document client gets. Every branch on a client, in the
 * auth-service and in the gateway, reads this table rather than comparing client ids.
 */

/** The first-party client ids. */
export type FirstPartyClientId = 'svc-cli' | 'create-svc' | 'svc-mcp' | 'svc-companion';

export interface ClientProfile {
  /** The name the client is shown by; null for registered clients, whose own name is shown. */
  name: string | null;
  /** First-party clients are the ones svc vouches for (RFC 9700 §4.11.2: registered ones are not). */
  verified: boolean;
  /**
   * What the token endpoint hands out: a personal `svc-user-` key in place of every OAuth token
   * (docs/contract.md "Personal key response"), or project-bound tokens with a refresh token.
   */
  issues: 'personal-key' | 'project-tokens';
  /** Accepts `auto_provision` at the device authorization endpoint (docs/contract.md rule 5). */
  autoProvision: boolean;
  /** The device page never fills the code in from `?code=`: the person types it from the terminal. */
  typedCode: boolean;
  /** The MCP surface its tokens get by default at the gateway. */
  surface: 'hosted' | 'companion';
}

/** The profile of every registered or metadata-document client. */
export const REGISTERED_CLIENT_PROFILE: ClientProfile = {
  name: null,
  verified: false,
  issues: 'project-tokens',
  autoProvision: false,
  typedCode: false,
  surface: 'hosted',
};

const FIRST_PARTY = { verified: true, issues: 'project-tokens', autoProvision: false, typedCode: false, surface: 'hosted' } as const;

/** The first-party profiles, by client id. */
export const CLIENT_PROFILES: Readonly<Record<FirstPartyClientId, ClientProfile>> = {
  'svc-cli': { ...FIRST_PARTY, name: 'svc command-line tool', issues: 'personal-key', typedCode: true },
  'create-svc': { ...FIRST_PARTY, name: 'create-svc project setup', autoProvision: true },
  'svc-mcp': { ...FIRST_PARTY, name: 'svc MCP client' },
  'svc-companion': { ...FIRST_PARTY, name: 'svc Companion', surface: 'companion' },
};

/** True for the client id of a first-party profile. */
export function isFirstPartyClient(clientId: unknown): clientId is FirstPartyClientId {
  return typeof clientId === 'string' && Object.hasOwn(CLIENT_PROFILES, clientId);
}

/** The profile of a client: its first-party one, else the registered clients'. */
export function clientProfile(clientId: unknown): ClientProfile {
  return isFirstPartyClient(clientId) ? CLIENT_PROFILES[clientId] : REGISTERED_CLIENT_PROFILE;
}
