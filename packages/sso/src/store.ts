/**
 * Where single sign-on keeps its settings and its started sign-ins (docs/auth-service.md "Single
 * sign-on"). The client secret is stored sealed (AES-256-GCM under a key derived from COOKIE_KEYS)
 * and never read back out but to talk to the provider.
 */
import { createHash } from 'node:crypto';
import type { Redis } from '@svc/accounts';
import { isRole, type Role } from '@svc/policy';
import { seal, unseal } from '@svc/credentials';
import { SSO_STATE_TTL_SECONDS } from './bounds.ts';
import { SK } from './keys.ts';
import type { SamlIdp } from './saml-idp.ts';

const SECRET_INFO = 'svc sso client secret v1';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
/** The field of a subject's link: the issuer and `sub` together name one person (OpenID Connect Core 1.0 §2). */
const subjectOf = (issuer: string, sub: string) => sha(`${issuer}\n${sub}`);

export interface GroupRole {
  group: string;
  role: Role;
}

/** A workspace's provider and policy, as shown to its owner (never the secret). */
export interface SsoSettings {
  /** The provider's protocol: OpenID Connect, or SAML 2.0 (docs/auth-service.md "SAML"). */
  kind: 'oidc' | 'saml';
  /** The OpenID issuer, or the SAML IdP's entity id. */
  issuer: string;
  /** The OpenID client id; empty for SAML. */
  clientId: string;
  /** The SAML IdP; null for OpenID Connect. */
  saml: SamlIdp | null;
  /** The role a member gets on each of the workspace's projects when no group maps to one (NONE: no access). */
  defaultRole: Role;
  /** "Members must use SSO": password sign-in refused for addresses at the workspace's proven domains. */
  required: boolean;
  groupRoles: GroupRole[];
  updatedAt: number;
}

export interface DomainClaim {
  domain: string;
  /** The value of the TXT record that proves it. */
  token: string;
  verifiedAt: number | null;
}

/** A sign-in sent to the provider, waiting for its answer. */
export interface PendingSignIn {
  workspace: string;
  nonce: string;
  verifier: string;
  /** SHA-256 of the random cookie the browser that started it holds (login CSRF, RFC 9700 §4.7). */
  browser: string;
  returnTo: string;
}

export function createSsoStore(redis: Redis, cookieKeys: string[]) {
  return {
    async settings(workspace: string): Promise<SsoSettings | null> {
      const h = await redis.hgetall(SK.config(workspace));
      const kind = h['kind'] === 'saml' ? 'saml' : 'oidc';
      const saml = kind === 'saml' && h['saml'] ? (JSON.parse(h['saml']) as SamlIdp) : null;
      if (kind === 'saml' ? !saml : !h['issuer'] || !h['clientId']) return null;
      const groupRoles = (JSON.parse(h['groupRoles'] ?? '[]') as GroupRole[]).filter((g) => isRole(g.role));
      return {
        kind,
        issuer: saml ? saml.entityId : (h['issuer'] ?? ''),
        clientId: saml ? '' : (h['clientId'] ?? ''),
        saml,
        defaultRole: isRole(h['defaultRole']) ? h['defaultRole'] : 'VIEWER',
        required: h['required'] === '1',
        groupRoles,
        updatedAt: Number(h['updatedAt'] ?? 0),
      };
    },
    /** The client secret, opened with any of COOKIE_KEYS (a rotation puts the new key first). */
    async secret(workspace: string): Promise<string | null> {
      const sealed = await redis.hget(SK.config(workspace), 'secretSealed');
      if (!sealed) return null;
      for (const key of cookieKeys) {
        const value = unseal(key, sealed, SECRET_INFO);
        if (typeof value === 'string') return value;
      }
      return null;
    },
    async saveProvider(workspace: string, p: { issuer: string; clientId: string; secret: string }, now: number): Promise<void> {
      await redis.hset(SK.config(workspace), {
        kind: 'oidc',
        issuer: p.issuer,
        clientId: p.clientId,
        secretSealed: seal(cookieKeys[0]!, p.secret, SECRET_INFO),
        updatedAt: String(now),
      });
      await redis.hdel(SK.config(workspace), 'saml');
    },
    /** Saves a SAML IdP in place of the provider (an OpenID provider's secret goes with it). */
    async saveSamlProvider(workspace: string, idp: SamlIdp, now: number): Promise<void> {
      await redis.hset(SK.config(workspace), { kind: 'saml', saml: JSON.stringify(idp), updatedAt: String(now) });
      await redis.hdel(SK.config(workspace), 'issuer', 'clientId', 'secretSealed');
    },
    async savePolicy(workspace: string, p: { defaultRole: Role; required: boolean; groupRoles: GroupRole[] }, now: number): Promise<void> {
      await redis.hset(SK.config(workspace), {
        defaultRole: p.defaultRole,
        required: p.required ? '1' : '0',
        groupRoles: JSON.stringify(p.groupRoles),
        updatedAt: String(now),
      });
    },
    async claims(workspace: string): Promise<DomainClaim[]> {
      const h = await redis.hgetall(SK.claims(workspace));
      return Object.entries(h)
        .map(([domain, v]) => ({ domain, ...(JSON.parse(v) as { token: string; verifiedAt: number | null }) }))
        .sort((a, b) => a.domain.localeCompare(b.domain));
    },
    async putClaim(workspace: string, claim: DomainClaim): Promise<void> {
      await redis.hset(SK.claims(workspace), claim.domain, JSON.stringify({ token: claim.token, verifiedAt: claim.verifiedAt }));
    },
    /** Takes the domain for the workspace unless another holds it; true when it is (now) the workspace's. */
    async takeDomain(workspace: string, domain: string): Promise<boolean> {
      await redis.set(SK.domain(domain), workspace, 'NX');
      return (await redis.get(SK.domain(domain))) === workspace;
    },
    async releaseDomain(workspace: string, domain: string): Promise<void> {
      await redis.hdel(SK.claims(workspace), domain);
      if ((await redis.get(SK.domain(domain))) === workspace) await redis.del(SK.domain(domain));
    },
    /** Removes the workspace's provider and policy (its secret with them), and the subjects linked through it. */
    async removeProvider(workspace: string): Promise<boolean> {
      return (await redis.del(SK.config(workspace), SK.links(workspace))) > 0;
    },
    /** The workspace a proven domain belongs to, or null. */
    async ownerOf(domain: string): Promise<string | null> {
      return redis.get(SK.domain(domain));
    },
    /**
     * Links the subject `sub` of `issuer` to the account `userId` within `workspace` (replacing an
     * earlier link of the same subject): the link names the account the subject last signed in to.
     */
    async link(workspace: string, issuer: string, sub: string, userId: string): Promise<void> {
      await redis.hset(SK.links(workspace), subjectOf(issuer, sub), userId);
    },
    /** The account the subject `sub` of `issuer` is linked to within `workspace`, or null. */
    async linkedUser(workspace: string, issuer: string, sub: string): Promise<string | null> {
      return redis.hget(SK.links(workspace), subjectOf(issuer, sub));
    },
    async startSignIn(state: string, pending: PendingSignIn): Promise<void> {
      await redis.set(SK.state(sha(state)), JSON.stringify(pending), 'EX', SSO_STATE_TTL_SECONDS);
    },
    /** The started sign-in of this state, removed as it is read: a state answers once. */
    async takeSignIn(state: string): Promise<PendingSignIn | null> {
      const raw = await redis.getdel(SK.state(sha(state)));
      return raw ? (JSON.parse(raw) as PendingSignIn) : null;
    },
  };
}

export type SsoStore = ReturnType<typeof createSsoStore>;
