/**
 * A workspace's trusted identity providers (docs/auth-service.md "Enterprise-managed
 * authorization"): the owner lists, adds and removes them; each change is audited.
 */
import { AccountError, type ServiceAccountKeys, type TrustedIssuer } from '@svc/accounts';
import type { ManagementContext } from './context.ts';
import type { AnswerOf } from './contract/define.ts';
import type * as contract from './contract/trusted-issuers.ts';
import { ManagementError, type Actor } from './types.ts';

/** A workspace's trusted identity providers (docs/auth-service.md "Enterprise-managed authorization"). */
export interface TrustedIssuerOperations {
  /** The workspace's trusted identity providers (docs/auth-service.md "Enterprise-managed authorization"). */
  listTrustedIssuers(actor: Actor, workspace: string): Promise<TrustedIssuer[]>;
  /** Trusts an issuer with its keys (a JWK Set or a JWKS URL), or replaces them; bounded, audited. */
  addTrustedIssuer(actor: Actor, workspace: string, input: { issuer: string; jwks?: unknown; jwksUri?: string }): Promise<TrustedIssuer>;
  removeTrustedIssuer(actor: Actor, workspace: string, id: string): Promise<AnswerOf<typeof contract.removeTrustedIssuer>>;
}

/** The operations of this group, on the shared context (each is described on TrustedIssuerOperations). */
export function trustedIssuerOperations(ctx: ManagementContext): TrustedIssuerOperations {
  const { accounts, note, ownerOf, full } = ctx;
  return {
    async listTrustedIssuers(actor, workspace) {
      await ownerOf(actor, workspace, 'see trusted identity providers');
      return accounts.trustedIssuers.list(workspace);
    },

    async addTrustedIssuer(actor, workspace, input) {
      await ownerOf(actor, workspace, 'trust identity providers');
      if ((input.jwks === undefined) === (input.jwksUri === undefined))
        throw new ManagementError(400, "Give either jwks (the provider's public JWK Set) or jwks_uri, not both.", 'jwks');
      const keys = (input.jwksUri === undefined ? { jwks: input.jwks } : { jwksUri: input.jwksUri }) as ServiceAccountKeys;
      const added: TrustedIssuer = await accounts.trustedIssuers.add(workspace, input.issuer, keys).catch((err: unknown) => {
        if (err instanceof AccountError && err.code === 'invalid')
          throw new ManagementError(
            400,
            `${err.message[0]!.toUpperCase()}${err.message.slice(1)}.`,
            err.message.startsWith('issuer') ? 'issuer' : 'jwks',
          );
        return full(err);
      });
      await note(actor, workspace, 'trusted_issuer.added', `trusted_issuer:${added.id} (${added.issuer})`);
      return added;
    },

    async removeTrustedIssuer(actor, workspace, id) {
      await ownerOf(actor, workspace, 'stop trusting identity providers');
      const removed = await accounts.trustedIssuers.remove(workspace, id);
      if (!removed) throw new ManagementError(404, 'This workspace trusts no such identity provider.');
      await note(actor, workspace, 'trusted_issuer.removed', `trusted_issuer:${removed.id} (${removed.issuer})`);
      return { id, removed: true };
    },
  };
}
