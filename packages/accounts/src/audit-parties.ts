/**
 * Who acted and through what (docs/audit.md "Who and through what"): every audit entry names its
 * principal (the person, service account, key, operator or svc itself that acted) and its agent (the
 * OAuth client the token was issued to, or the API key when no OAuth client carried the request;
 * svc's own pages, svc-admin, or svc's background work), and the delegation chain of a token that
 * carries one (RFC 8693 §4.1 `act`). The same three fields go out with webhooks and the stream.
 */
import type { ApiKeyStore } from './api-keys.ts';
import type { BotStore } from './bots.ts';
import type { ApiKeyRecord } from './types.ts';
import { clientProfile, isFirstPartyClient } from './client-profiles.ts';
import { withoutHiddenCharacters } from './names.ts';
import { oidcRecords } from './oidc-records.ts';
import type { Redis } from './redis.ts';

/** Who acted. */
export interface AuditPrincipal {
  /**
   * `user` a person (id: the user id, label: their email); `service_account` (id: its id, label its
   * name or `service_account:<id>`); `key` a project key acting for itself (id: the key id, label
   * `key:<prefix>`); `operator` svc-admin at the server; `svc` svc itself (a sweep, a worker, SSO's
   * refusal); `unknown` an actor only named (a leak report).
   */
  type: 'user' | 'service_account' | 'key' | 'operator' | 'svc' | 'unknown';
  /** The id behind the label; empty when the writer knew only the label. */
  id: string;
  label: string;
}

/** Through what the principal acted. */
export interface AuditAgent {
  /**
   * `oauth_client` (id: client_id), `api_key` when no OAuth client carried the request (id: its
   * prefix), `web` svc's dashboard and account pages in a signed-in browser, `operator` svc-admin,
   * `svc` svc's own background work, `unknown` when the writer did not say.
   */
  type: 'oauth_client' | 'api_key' | 'web' | 'operator' | 'svc' | 'unknown';
  id: string;
  /** The name it is shown by: a client's profile or registered name (else its client_id), a key's name. */
  name: string;
  /**
   * Whether svc vouches for it: first-party clients (client-profiles.ts) and svc's own surfaces;
   * registered, metadata-document and service-account clients, API keys and unknown agents are not.
   */
  verified: boolean;
  /** The API key that carried the request, by its prefix (a personal key svc-cli was given included); null for none. */
  key: string | null;
}

/** One link of a token's delegation chain: the claims of one RFC 8693 §4.1 `act` object. */
export interface AuditDelegation {
  sub: string;
  iss?: string;
  client_id?: string;
}

/** Who acted, through what, for whom: what every entry carries beside its actor's label. */
export interface AuditParties {
  principal: AuditPrincipal;
  agent: AuditAgent;
  /** The `act` chain, the current actor first (RFC 8693 §4.1); empty when no token delegated. */
  chain: AuditDelegation[];
}

/** svc's own agents, and the one of an entry whose writer did not say. */
export const AUDIT_AGENTS = {
  web: { type: 'web', id: 'svc-web', name: 'svc dashboard and account pages', verified: true, key: null },
  operator: { type: 'operator', id: 'svc-admin', name: 'svc-admin at the server', verified: true, key: null },
  svc: { type: 'svc', id: 'svc', name: 'svc background work', verified: true, key: null },
  unknown: { type: 'unknown', id: '', name: '', verified: false, key: null },
} as const satisfies Record<string, AuditAgent>;

/** How long a client name is shown (as the consent page cuts one). */
const MAX_CLIENT_NAME = 80;

/** An API key as agent: by its prefix, with its name. */
export function keyAgent(key: { prefix: string; name: string }): AuditAgent {
  return { type: 'api_key', id: key.prefix, name: key.name, verified: false, key: key.prefix };
}

/**
 * The parties of an entry whose writer gave only the actor's label (docs/audit.md "Who and through
 * what"): read from the label's shape; the agent is unknown unless the label says it.
 */
export function partiesOfActor(actor: string): AuditParties {
  const chain: AuditDelegation[] = [];
  const unknown = { ...AUDIT_AGENTS.unknown };
  if (actor === 'svc' || actor === 'sso')
    return { principal: { type: 'svc', id: '', label: actor }, agent: { ...AUDIT_AGENTS.svc }, chain };
  if (actor.startsWith('service:'))
    return { principal: { type: 'operator', id: '', label: actor }, agent: { ...AUDIT_AGENTS.operator }, chain };
  if (actor.startsWith('key:')) {
    const prefix = actor.slice('key:'.length);
    return { principal: { type: 'key', id: '', label: actor }, agent: keyAgent({ prefix, name: '' }), chain };
  }
  if (actor.startsWith('service_account:'))
    return { principal: { type: 'service_account', id: actor.slice('service_account:'.length), label: actor }, agent: unknown, chain };
  if (actor.includes('@')) return { principal: { type: 'user', id: '', label: actor }, agent: unknown, chain };
  return { principal: { type: 'unknown', id: '', label: actor }, agent: unknown, chain };
}

/**
 * What names an agent before it is looked up: the OAuth client id of a token (the gateway's tool
 * caller names an API key `svc-key:<key id>` there), an API key's id, or its record.
 */
export type AuditAgentRef = { clientId: string } | { keyId: string } | { key: Pick<ApiKeyRecord, 'prefix' | 'name' | 'clientId'> };

/** Turns an AuditAgentRef into the agent an entry names: client names, profiles and key prefixes looked up. */
export class AuditAgents {
  private readonly redis: Redis;
  private readonly keys: ApiKeyStore;
  private readonly bots: BotStore;

  constructor(redis: Redis, keys: ApiKeyStore, bots: BotStore) {
    this.redis = redis;
    this.keys = keys;
    this.bots = bots;
  }

  async of(ref: AuditAgentRef): Promise<AuditAgent> {
    if ('key' in ref) return this.ofKey(ref.key);
    const keyId = 'keyId' in ref ? ref.keyId : ref.clientId.startsWith('svc-key:') ? ref.clientId.slice('svc-key:'.length) : null;
    if (keyId === null) return this.ofClient((ref as { clientId: string }).clientId, null);
    const key = await this.keys.getById(keyId);
    return key ? this.ofKey(key) : { ...AUDIT_AGENTS.unknown };
  }

  /** An API key: its OAuth client when one issued it (the personal key svc-cli was given), else the key itself. */
  private async ofKey(key: Pick<ApiKeyRecord, 'prefix' | 'name' | 'clientId'>): Promise<AuditAgent> {
    return key.clientId ? this.ofClient(key.clientId, key.prefix) : keyAgent(key);
  }

  /**
   * An OAuth client: a first-party one by its profile (verified); a service account's client by
   * the account's name; a registered one by its client_name; a metadata-document client (its id a
   * URL, no record kept) by its client_id. None but the first-party ones is verified.
   */
  private async ofClient(clientId: string, key: string | null): Promise<AuditAgent> {
    const agent = { type: 'oauth_client', id: clientId, verified: clientProfile(clientId).verified, key } as const;
    if (isFirstPartyClient(clientId)) return { ...agent, name: clientProfile(clientId).name ?? clientId };
    const bot = await this.bots.get(clientId);
    if (bot) return { ...agent, name: bot.name };
    const registered = (await oidcRecords.client(this.redis, clientId))?.client_name;
    return { ...agent, name: registered ? shownName(registered) : clientId };
  }
}

/** A client's own name fit to show: hidden characters out, at most MAX_CLIENT_NAME characters. */
function shownName(name: string): string {
  const chars = [...withoutHiddenCharacters(name).trim()];
  return chars.length > MAX_CLIENT_NAME ? `${chars.slice(0, MAX_CLIENT_NAME - 1).join('')}…` : chars.join('');
}
