/**
 * A workspace's single sign-on settings on the management API and svc-admin (docs/auth-service.md
 * "Single sign-on", docs/management.md "Single sign-on"): the owner's, through a personal key; a
 * project key or an OAuth token is refused. The settings service (@svc/sso) checks ownership,
 * judges the input and records each change in the audit log; its refusals become ManagementErrors.
 */
import { SsoError, type DomainClaim, type PolicyInput, type ProviderInput, type SettingsActor, type SsoView } from '@svc/sso';
import type { ManagementContext } from './context.ts';
import type { AnswerOf } from './contract/define.ts';
import type * as contract from './contract/sso.ts';
import type { Actor } from './types.ts';
import { ManagementError } from './types.ts';

/** The SSO operations of the management layer (each is described on Management). */
export interface SsoOperations {
  ssoSettings(actor: Actor, workspace: string): Promise<SsoView>;
  configureSsoProvider(actor: Actor, workspace: string, input: ProviderInput): Promise<SsoView>;
  setSsoPolicy(actor: Actor, workspace: string, input: PolicyInput): Promise<SsoView>;
  claimSsoDomain(actor: Actor, workspace: string, domain: string): Promise<DomainClaim>;
  verifySsoDomain(actor: Actor, workspace: string, domain: string): Promise<DomainClaim>;
  releaseSsoDomain(actor: Actor, workspace: string, domain: string): Promise<AnswerOf<typeof contract.releaseSsoDomain>>;
}

/** A refusal of the settings service as the management layer says it. */
function refusal(err: unknown): never {
  if (!(err instanceof SsoError)) throw err;
  // 502 (the provider's discovery unreadable) only arises where a discovery check is given; to
  // the caller it is a bad issuer.
  const status = err.status === 502 || err.status === 413 || err.status === 429 ? 400 : err.status;
  throw new ManagementError(status, err.message, err.field ?? (err.status === 502 ? 'issuer' : undefined));
}

export function ssoOperations(ctx: ManagementContext): SsoOperations {
  const settings = () => {
    if (!ctx.deps.sso) throw new ManagementError(404, 'Single sign-on is not served here.');
    return ctx.deps.sso;
  };
  const as = (actor: Actor, what: string): SettingsActor => ({
    userId: ctx.personOf(actor, what),
    email: actor.label,
    source: actor.source,
    requestId: actor.requestId,
  });
  const claimOf = async (actor: Actor, workspace: string, domain: string): Promise<DomainClaim> => {
    const view = await settings().view(as(actor, 'manage single sign-on'), workspace);
    const claim = view.claims.find((c) => c.domain === domain.trim().toLowerCase().replace(/\.$/, ''));
    if (!claim) throw new ManagementError(404, `${domain.slice(0, 100)} is not claimed by ${workspace}.`);
    return claim;
  };

  return {
    async ssoSettings(actor, workspace) {
      return settings().view(as(actor, 'see single sign-on'), workspace).catch(refusal);
    },
    async configureSsoProvider(actor, workspace, input) {
      const who = as(actor, 'manage single sign-on');
      await settings().configureProvider(who, workspace, input).catch(refusal);
      return settings().view(who, workspace);
    },
    async setSsoPolicy(actor, workspace, input) {
      const who = as(actor, 'manage single sign-on');
      await settings().setPolicy(who, workspace, input).catch(refusal);
      return settings().view(who, workspace);
    },
    async claimSsoDomain(actor, workspace, domain) {
      return settings().claimDomain(as(actor, 'manage single sign-on'), workspace, domain).catch(refusal);
    },
    async verifySsoDomain(actor, workspace, domain) {
      await settings().verifyDomain(as(actor, 'manage single sign-on'), workspace, domain).catch(refusal);
      return claimOf(actor, workspace, domain);
    },
    async releaseSsoDomain(actor, workspace, domain) {
      await settings().releaseDomain(as(actor, 'manage single sign-on'), workspace, domain).catch(refusal);
      return { domain, released: true };
    },
  };
}
