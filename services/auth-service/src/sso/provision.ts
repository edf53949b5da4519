/**
 * What an accepted SSO sign-in does to svc's accounts (docs/auth-service.md "Single sign-on"), the
 * one completion both protocols feed once their own checks passed (OpenID Connect's flow.ts, SAML's
 * saml-flow.ts):
 * the account of the address (made on first sign-in, the address proven by the provider), and the
 * person's role on each of the workspace's projects: the highest role a group of theirs maps to,
 * else the workspace's default. Set again at every sign-in, so a change of groups at the provider
 * takes effect at the next one.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Accounts, User } from '@svc/accounts';
import { AccountError, AUDIT_AGENTS } from '@svc/accounts';
import { roleAtLeast, type Role } from '@svc/policy';
import type { IDToken } from 'openid-client';
import { SSO_MAX_GROUPS_READ, SsoError, type SsoSettings, type SsoStore } from '@svc/sso';

/** How long a first sign-in waits for the account a concurrent first sign-in of the same address is making. */
const ACCOUNT_WAIT_MS = 5_000;
const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 200;

/** The groups of an ID token (its `groups` claim, a list of strings), at most SSO_MAX_GROUPS_READ. */
export function groupsOf(claims: IDToken): string[] {
  const groups = claims['groups'];
  if (!Array.isArray(groups)) return [];
  return groups.slice(0, SSO_MAX_GROUPS_READ).filter((g): g is string => typeof g === 'string');
}

/**
 * Who the provider vouched for, whatever its protocol: `issuer` and `subject` name the person at
 * the provider (OpenID Connect's `iss` and `sub`, SAML's Issuer and NameID).
 */
export interface SsoIdentity {
  issuer: string;
  subject: string;
  email: string;
  /** The provider says it checked the address (OpenID Connect Core 1.0 §5.1 `email_verified`). */
  emailVerified: boolean;
  groups: string[];
  /** The provider's session id (an ID token's `sid`, at most 255 characters): what its back-channel logout names. */
  sid?: string;
}

/** The identity an ID token names (openid-client checked its signature, `iss`, `aud`, `exp` and `nonce`). */
export function identityOfIdToken(claims: IDToken): SsoIdentity {
  return {
    issuer: claims.iss,
    subject: claims.sub,
    email: typeof claims['email'] === 'string' ? claims['email'] : '',
    emailVerified: claims['email_verified'] === true,
    groups: groupsOf(claims),
    ...(typeof claims['sid'] === 'string' && claims['sid'].length <= 255 ? { sid: claims['sid'] } : {}),
  };
}

/** The highest role any of the groups maps to; the default when none does. */
export function roleFor(settings: Pick<SsoSettings, 'defaultRole' | 'groupRoles'>, groups: string[]): Role {
  const mapped = settings.groupRoles.filter((m) => groups.includes(m.group)).map((m) => m.role);
  if (mapped.length === 0) return settings.defaultRole;
  return mapped.reduce((best, r) => (roleAtLeast(r, best) ? r : best));
}

/** The person an SSO sign-in accepted; `unproven` when their account's address was never proven before. */
export interface SsoPerson {
  user: User;
  unproven: boolean;
  /** The id of the sign-in's audit entries. */
  requestId: string;
  /** The provider's session (`iss` and the ID token's `sid`), when it sent one: what its back-channel logout names. */
  sid: { issuer: string; sid: string } | null;
}

export function provisioning(deps: { accounts: Accounts; store: SsoStore; clearTakenOver: (user: User) => Promise<unknown> }) {
  /**
   * The account of the address. One made before (by sign-up) whose address was never proven may be
   * a squatter's: its password is removed, and `unproven` tells the caller to end its sessions,
   * before it becomes the person's the provider vouched for.
   */
  async function accountOf(email: string): Promise<{ user: User; created: boolean; unproven?: true }> {
    const found = await deps.accounts.users.findByEmail(email);
    if (found) {
      if (found.emailVerifiedAt !== null) return { user: found, created: false };
      await deps.accounts.users.clearPassword(found.id);
      // Whatever a squatter made before the address was proven goes with the password: every
      // workspace-level setting and credential (the management layer's takeover clean-up).
      await deps.clearTakenOver(found);
      await deps.accounts.users.markEmailVerified(found.id);
      return { user: found, created: false, unproven: true };
    }
    try {
      return { user: await deps.accounts.users.create({ email, emailVerified: true }), created: true };
    } catch (err) {
      if (!(err instanceof AccountError && err.code === 'conflict')) throw err;
    }
    // Two first sign-ins at once: the other claimed the address (users.create) and is writing the
    // account; this one signs in as it once it is there, or is told to try again.
    const made = await madeMeanwhile(email);
    if (!made) throw new SsoError(409, `Another sign-in is making the account of ${email} right now. Try again in a moment.`);
    return { user: made, created: false };
  }

  /** The account of the address once another sign-in's creation of it is written; null past ACCOUNT_WAIT_MS. */
  async function madeMeanwhile(email: string): Promise<User | null> {
    const deadline = performance.now() + ACCOUNT_WAIT_MS;
    for (let pause = FIRST_POLL_MS; ; pause = Math.min(pause * 2, MAX_POLL_MS)) {
      const found = await deps.accounts.users.findByEmail(email);
      if (found || performance.now() > deadline) return found;
      await delay(pause);
    }
  }

  return {
    /**
     * Accepts the provider's person for the workspace; refuses an unverified or foreign address. The
     * provider's subject is linked to the account within the workspace, so an ID-JAG of the same
     * issuer names the person by it (docs/auth-service.md "Enterprise-managed authorization").
     */
    async signIn(workspace: string, settings: SsoSettings, identity: SsoIdentity, source: string): Promise<SsoPerson> {
      const email = identity.email.trim().toLowerCase();
      if (!email.includes('@')) throw new SsoError(403, "Your company's sign-in sent no email address for you.");
      if (!identity.emailVerified) {
        throw new SsoError(403, `Your company's sign-in has not verified the address ${email}; svc accepts only a verified address.`);
      }
      const domain = email.slice(email.lastIndexOf('@') + 1);
      if ((await deps.store.ownerOf(domain)) !== workspace) {
        throw new SsoError(403, `${domain} is not a domain this workspace proved, so its sign-in cannot vouch for ${email}.`);
      }
      const { user, created, unproven } = await accountOf(email);
      // OpenID Connect Core 1.0 §2: `iss` and `sub` together name the person (SAML: Issuer and NameID).
      await deps.store.link(workspace, identity.issuer, identity.subject, user.id);
      const role = roleFor(settings, identity.groups);
      const owner = (await deps.accounts.workspaces.get(workspace))?.owner;
      if (owner !== user.id) {
        for (const project of await deps.accounts.workspaces.projectsOf(workspace)) {
          await deps.accounts.workspaces.setRole(project, user.id, role);
        }
      }
      const requestId = randomUUID();
      await deps.accounts.audit.record({
        workspace,
        actor: email,
        action: 'sso.signed_in',
        target: `user:${email}`,
        source,
        requestId,
        detail: {
          role,
          created: String(created),
          kind: settings.kind,
          issuer: settings.issuer,
          ...(unproven ? { password_removed: 'true' } : {}),
        },
        principal: { type: 'user', id: user.id, label: email },
        agent: AUDIT_AGENTS.web,
      });
      const sid = identity.sid ? { issuer: identity.issuer, sid: identity.sid } : null;
      return { user, unproven: unproven ?? false, requestId, sid };
    },
  };
}

export type Provisioning = ReturnType<typeof provisioning>;
