/**
 * The single-use values of a SAML sign-in (docs/auth-service.md "SAML", docs/redis-schema.md): the
 * AuthnRequest sent (its ID answered once), each assertion accepted (once, until its
 * NotOnOrAfter), and the checked answer handed from the ACS to the browser's step back. Each is
 * claimed with one atomic command: GETDEL or SET NX.
 */
import { createHash } from 'node:crypto';
import type { Redis } from '@svc/accounts';
import { SSO_SAML_HANDOFF_SECONDS, SSO_STATE_TTL_SECONDS } from './bounds.ts';
import { SK } from './keys.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** An AuthnRequest sent to the IdP, waiting for its Response. */
export interface PendingSamlRequest {
  workspace: string;
  /** SHA-256 of the random cookie the browser that started it holds (login CSRF, as for OpenID Connect). */
  browser: string;
  returnTo: string;
}

/** Who a checked assertion names, as the sign-in completion reads them. */
export interface SamlIdentity {
  issuer: string;
  nameId: string;
  email: string;
  groups: string[];
}

/** A checked answer on its way from the ACS to the browser's GET on svc's own origin. */
export interface SamlHandoff {
  request: PendingSamlRequest;
  identity: SamlIdentity;
}

export function createSamlStore(redis: Redis) {
  return {
    async startRequest(id: string, pending: PendingSamlRequest): Promise<void> {
      await redis.set(SK.samlRequest(sha(id)), JSON.stringify(pending), 'EX', SSO_STATE_TTL_SECONDS);
    },
    /** The request an InResponseTo answers, removed as it is read: a request is answered once. */
    async takeRequest(id: string): Promise<PendingSamlRequest | null> {
      const raw = await redis.getdel(SK.samlRequest(sha(id)));
      return raw ? (JSON.parse(raw) as PendingSamlRequest) : null;
    },
    /** True the first time an assertion of `issuer` with `id` is seen; it is remembered until `expiresAt` (ms). */
    async claimAssertion(workspace: string, issuer: string, id: string, expiresAt: number, now: number): Promise<boolean> {
      const ttl = Math.max(1, Math.ceil((expiresAt - now) / 1000));
      return (await redis.set(SK.samlAssertion(workspace, sha(`${issuer}\n${id}`)), '1', 'EX', ttl, 'NX')) === 'OK';
    },
    async putHandoff(code: string, handoff: SamlHandoff): Promise<void> {
      await redis.set(SK.samlHandoff(sha(code)), JSON.stringify(handoff), 'EX', SSO_SAML_HANDOFF_SECONDS);
    },
    async takeHandoff(code: string): Promise<SamlHandoff | null> {
      const raw = await redis.getdel(SK.samlHandoff(sha(code)));
      return raw ? (JSON.parse(raw) as SamlHandoff) : null;
    },
  };
}

export type SamlStore = ReturnType<typeof createSamlStore>;
