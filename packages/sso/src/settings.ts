/**
 * A workspace owner's SSO settings (docs/auth-service.md "Single sign-on"): the provider, the
 * claimed domains and their proof, and the policy. Only the workspace's owner changes them; every
 * change is recorded in the workspace's audit log (docs/audit.md), never with the client secret.
 */
import { randomUUID } from 'node:crypto';
import type { Accounts, AuditAction } from '@svc/accounts';
import { isRole, type Role } from '@svc/policy';
import {
  SSO_MAX_CLIENT_ID_LENGTH,
  SSO_MAX_CLIENT_SECRET_LENGTH,
  SSO_MAX_DOMAINS,
  SSO_MAX_GROUP_LENGTH,
  SSO_MAX_GROUP_MAPPINGS,
  SSO_MAX_ISSUER_LENGTH,
} from './bounds.ts';
import { domainProven, newProofToken, normalDomain, type ResolveTxt } from './domain-proof.ts';
import { SsoError } from './errors.ts';
import { samlAuditDetail, samlIdpOf, samlServiceProvider, type SamlIdpInput, type SamlServiceProvider } from './saml-idp.ts';
import type { DomainClaim, GroupRole, SsoSettings, SsoStore } from './store.ts';

/** Who is changing the settings: a signed-in person (or svc-admin acting for the owner), from an address. */
export interface SettingsActor {
  userId: string;
  /** How the audit log names them. */
  email: string;
  source: string;
  /** The request's id, when it has one (the REST API's); else a fresh one per audit entry. */
  requestId?: string;
}

/**
 * Reads the provider's discovery document before it is saved (the auth-service's guarded
 * openid-client, src/sso/provider-client.ts there). Where none is given (the gateway, svc-admin:
 * no outbound requests), the provider is saved unchecked; the sign-in flow discovers it at each
 * sign-in and refuses one it cannot read (docs/auth-service.md "Single sign-on").
 */
export type CheckProvider = (issuer: string, clientId: string, secret: string) => Promise<unknown>;

export interface SsoSettingsDeps {
  accounts: Accounts;
  store: SsoStore;
  discover?: CheckProvider;
  resolveTxt: ResolveTxt;
  now: () => number;
  /** The auth-service's public URL: the view names the SAML service provider by it (docs/auth-service.md "SAML"). */
  authUrl?: string;
}

export interface SsoView {
  settings: SsoSettings | null;
  claims: DomainClaim[];
  /** svc's SAML service provider for the workspace, when its provider is SAML and the auth-service's URL is known. */
  serviceProvider: SamlServiceProvider | null;
}

/** A provider as an owner gives it: OpenID Connect (issuer, client id, secret) or SAML (the IdP's metadata or fields). */
export interface ProviderInput {
  kind?: 'oidc' | 'saml';
  issuer?: string;
  clientId?: string;
  secret?: string;
  saml?: SamlIdpInput;
}

export interface PolicyInput {
  defaultRole: string;
  required: boolean;
  groupRoles: { group: string; role: string }[];
}

export function ssoSettings(deps: SsoSettingsDeps) {
  async function owned(actor: SettingsActor, workspace: string): Promise<void> {
    const ws = await deps.accounts.workspaces.get(workspace);
    if (!ws) throw new SsoError(404, `There is no workspace ${workspace}.`);
    if (ws.owner !== actor.userId) throw new SsoError(403, `Only the owner of ${workspace} changes its single sign-on.`);
  }

  async function audit(actor: SettingsActor, workspace: string, action: AuditAction, detail: Record<string, string>): Promise<void> {
    await deps.accounts.audit.record({
      workspace,
      actor: actor.email,
      action,
      target: `workspace:${workspace}`,
      source: actor.source,
      requestId: actor.requestId ?? randomUUID(),
      detail,
    });
  }

  /** Saves a SAML IdP (docs/auth-service.md "SAML"): its metadata or fields judged by samlIdpOf. */
  async function configureSaml(actor: SettingsActor, workspace: string, input: SamlIdpInput): Promise<void> {
    const idp = samlIdpOf(input, (await deps.store.settings(workspace))?.saml?.certificates ?? []);
    await deps.store.saveSamlProvider(workspace, idp, deps.now());
    await audit(actor, workspace, 'sso.configured', samlAuditDetail(idp));
  }

  return {
    /**
     * Removes every setting of the workspace's single sign-on: its provider, policy and domains
     * (an unproven account's, when its address's owner takes it over: docs/security.md "Unproven
     * addresses"). Not an owner's action: the management layer's takeover clean-up calls it.
     */
    async clear(workspace: string): Promise<number> {
      const claims = await deps.store.claims(workspace);
      for (const claim of claims) await deps.store.releaseDomain(workspace, claim.domain);
      return claims.length + ((await deps.store.removeProvider(workspace)) ? 1 : 0);
    },

    async view(actor: SettingsActor, workspace: string): Promise<SsoView> {
      await owned(actor, workspace);
      const settings = await deps.store.settings(workspace);
      const sp = settings?.kind === 'saml' && deps.authUrl ? samlServiceProvider(deps.authUrl, workspace) : null;
      return { settings, claims: await deps.store.claims(workspace), serviceProvider: sp };
    },

    /** Saves the provider after its discovery document was read through the guarded client. */
    async configureProvider(actor: SettingsActor, workspace: string, input: ProviderInput): Promise<void> {
      await owned(actor, workspace);
      if (input.kind === 'saml') return configureSaml(actor, workspace, input.saml ?? {});
      const issuer = (input.issuer ?? '').trim();
      const clientId = (input.clientId ?? '').trim();
      if (!URL.canParse(issuer) || issuer.length > SSO_MAX_ISSUER_LENGTH) {
        throw new SsoError(400, `The issuer must be a URL of at most ${SSO_MAX_ISSUER_LENGTH} characters.`, '', 'issuer');
      }
      if (!clientId || clientId.length > SSO_MAX_CLIENT_ID_LENGTH) {
        throw new SsoError(400, `The client id must be 1 to ${SSO_MAX_CLIENT_ID_LENGTH} characters.`, '', 'clientId');
      }
      const previous = await deps.store.secret(workspace);
      const secret = input.secret || previous || '';
      if (!secret || secret.length > SSO_MAX_CLIENT_SECRET_LENGTH) {
        throw new SsoError(400, `The client secret must be 1 to ${SSO_MAX_CLIENT_SECRET_LENGTH} characters.`, '', 'secret');
      }
      if (deps.discover) await deps.discover(issuer, clientId, secret);
      await deps.store.saveProvider(workspace, { issuer, clientId, secret }, deps.now());
      await audit(actor, workspace, 'sso.configured', {
        kind: 'oidc',
        issuer,
        clientId,
        secret: input.secret ? 'replaced' : 'kept',
        discovery: deps.discover ? 'read' : 'not checked',
      });
    },

    async setPolicy(actor: SettingsActor, workspace: string, input: PolicyInput): Promise<void> {
      await owned(actor, workspace);
      if (!isRole(input.defaultRole)) throw new SsoError(400, 'The default role must be NONE, VIEWER, EDITOR or ADMIN.', '', 'defaultRole');
      if (input.groupRoles.length > SSO_MAX_GROUP_MAPPINGS) {
        throw new SsoError(400, `At most ${SSO_MAX_GROUP_MAPPINGS} group mappings (${input.groupRoles.length} given).`, '', 'groupRoles');
      }
      const groupRoles: GroupRole[] = [];
      for (const row of input.groupRoles) {
        const group = row.group.trim();
        if (!group || group.length > SSO_MAX_GROUP_LENGTH)
          throw new SsoError(400, `A group name must be 1 to ${SSO_MAX_GROUP_LENGTH} characters.`, '', 'groupRoles');
        if (!isRole(row.role))
          throw new SsoError(400, `The role of group ${group} must be NONE, VIEWER, EDITOR or ADMIN.`, '', 'groupRoles');
        groupRoles.push({ group, role: row.role });
      }
      const settings = await deps.store.settings(workspace);
      if (input.required && !settings) throw new SsoError(400, 'Configure the provider before requiring SSO.', '', 'required');
      if (input.required && !(await deps.store.claims(workspace)).some((c) => c.verifiedAt !== null)) {
        throw new SsoError(400, 'Prove a domain before requiring SSO: the policy applies to addresses at proven domains.', '', 'required');
      }
      const defaultRole: Role = input.defaultRole;
      await deps.store.savePolicy(workspace, { defaultRole, required: input.required, groupRoles }, deps.now());
      await audit(actor, workspace, 'sso.policy_changed', {
        defaultRole,
        required: String(input.required),
        groupRoles: groupRoles.map((g) => `${g.group}=${g.role}`).join(','),
      });
    },

    /** Claims a domain: a token to publish in DNS; it takes effect once proven (verifyDomain). */
    async claimDomain(actor: SettingsActor, workspace: string, input: string): Promise<DomainClaim> {
      await owned(actor, workspace);
      const domain = normalDomain(input);
      if (!domain) throw new SsoError(400, `"${input.slice(0, 100)}" is not a domain name.`, '', 'domain');
      const claims = await deps.store.claims(workspace);
      const existing = claims.find((c) => c.domain === domain);
      if (existing) return existing;
      if (claims.length >= SSO_MAX_DOMAINS) throw new SsoError(400, `A workspace claims at most ${SSO_MAX_DOMAINS} domains.`, '', 'domain');
      const owner = await deps.store.ownerOf(domain);
      if (owner && owner !== workspace) throw new SsoError(409, `${domain} is already proven by another workspace.`);
      const claim = { domain, token: newProofToken(), verifiedAt: null };
      await deps.store.putClaim(workspace, claim);
      await audit(actor, workspace, 'sso.domain_claimed', { domain });
      return claim;
    },

    /** Looks the proof up in DNS; the domain becomes the workspace's, unless another proved it first. */
    async verifyDomain(actor: SettingsActor, workspace: string, input: string): Promise<void> {
      await owned(actor, workspace);
      const domain = normalDomain(input) ?? '';
      const claim = (await deps.store.claims(workspace)).find((c) => c.domain === domain);
      if (!claim) throw new SsoError(404, `${input.slice(0, 100)} is not claimed by ${workspace}.`);
      if (claim.verifiedAt !== null) return;
      if (!(await domainProven(deps.resolveTxt, domain, claim.token))) {
        throw new SsoError(
          400,
          `No TXT record _svc-sso.${domain} with the value svc-sso=${claim.token} was found. DNS changes can take a while to appear.`,
        );
      }
      if (!(await deps.store.takeDomain(workspace, domain))) throw new SsoError(409, `${domain} is already proven by another workspace.`);
      await deps.store.putClaim(workspace, { ...claim, verifiedAt: deps.now() });
      await audit(actor, workspace, 'sso.domain_verified', { domain });
    },

    async releaseDomain(actor: SettingsActor, workspace: string, input: string): Promise<void> {
      await owned(actor, workspace);
      const domain = normalDomain(input) ?? '';
      if (!(await deps.store.claims(workspace)).some((c) => c.domain === domain)) {
        throw new SsoError(404, `${input.slice(0, 100)} is not claimed by ${workspace}.`);
      }
      await deps.store.releaseDomain(workspace, domain);
      await audit(actor, workspace, 'sso.domain_released', { domain });
    },
  };
}

export type SsoSettingsService = ReturnType<typeof ssoSettings>;
