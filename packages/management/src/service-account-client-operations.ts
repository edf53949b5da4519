/**
 * A service account's OAuth client (docs/auth-service.md "Client credentials"): the workspace owner
 * shows, sets and removes the public keys it signs its client assertions with; each change is audited.
 */
import { AccountError, serviceAccountKeysProblem, type Bot, type ServiceAccountKeys } from '@svc/accounts';
import type { ManagementContext } from './context.ts';
import type { AnswerOf } from './contract/define.ts';
import type * as contract from './contract/service-accounts.ts';
import { ManagementError, type ServiceAccountClient, type Actor } from './types.ts';

/** A service account's OAuth client and its public keys. */
export interface ServiceAccountClientOperations {
  /** A service account's OAuth client: its id, token endpoint and public keys (docs/auth-service.md "Client credentials"). */
  getServiceAccountClient(actor: Actor, workspace: string, id: string): Promise<ServiceAccountClient>;
  /** Replaces its public keys with a JWK Set or a JWKS URL (exactly one), checked and audited. */
  setServiceAccountClientKeys(
    actor: Actor,
    workspace: string,
    id: string,
    input: { jwks?: unknown; jwksUri?: string },
  ): Promise<ServiceAccountClient>;
  /** Removes its public keys: the client stops authenticating at once; `removed` says whether there were any. */
  removeServiceAccountClientKeys(
    actor: Actor,
    workspace: string,
    id: string,
  ): Promise<AnswerOf<typeof contract.removeServiceAccountClientKeys>>;
}

/** The operations of this group, on the shared context (each is described on ServiceAccountClientOperations). */
export function serviceAccountClientOperations(ctx: ManagementContext): ServiceAccountClientOperations {
  const { accounts, deps, note, ownerOf } = ctx;

  async function botOf(actor: Parameters<typeof ownerOf>[0], workspace: string, id: string, what: string) {
    await ownerOf(actor, workspace, what);
    const bot = await accounts.bots.get(id);
    if (!bot || bot.workspace !== workspace) throw new ManagementError(404, 'There is no such service account in this workspace.');
    return bot;
  }

  const client = (bot: Bot, keys: ServiceAccountKeys | null): ServiceAccountClient => ({
    id: bot.id,
    clientId: bot.id,
    tokenEndpoint: `${deps.authUrl ?? ''}/api/oauth/token`,
    resources: [...Object.keys(bot.grants).sort(), `team/${bot.workspace}`].map((p) => `${deps.baseUrl ?? ''}/mcp/${p}`),
    jwks: keys && 'jwks' in keys ? keys.jwks : null,
    jwksUri: keys && 'jwksUri' in keys ? keys.jwksUri : null,
  });

  return {
    async getServiceAccountClient(actor, workspace, id) {
      const bot = await botOf(actor, workspace, id, 'see service account keys');
      return client(bot, await accounts.serviceAccountClients.getKeys(id));
    },

    async setServiceAccountClientKeys(actor, workspace, id, input) {
      const bot = await botOf(actor, workspace, id, 'set service account keys');
      const keys = (input.jwksUri === undefined ? { jwks: input.jwks } : { jwksUri: input.jwksUri }) as ServiceAccountKeys;
      if ((input.jwks === undefined) === (input.jwksUri === undefined))
        throw new ManagementError(400, 'Give either jwks (a public JWK Set) or jwks_uri, not both.', 'jwks');
      const problem = serviceAccountKeysProblem(keys);
      if (problem)
        throw new ManagementError(400, `${problem[0]!.toUpperCase()}${problem.slice(1)}.`, 'jwksUri' in keys ? 'jwks_uri' : 'jwks');
      const stored = await accounts.serviceAccountClients.setKeys(id, keys).catch((err: unknown) => {
        if (err instanceof AccountError && err.code === 'invalid') throw new ManagementError(400, err.message, 'jwks');
        throw err;
      });
      const detail: Record<string, string> =
        'jwksUri' in stored ? { jwks_uri: stored.jwksUri } : { kids: stored.jwks.keys.map((k) => k.kid).join(' ') };
      await note(actor, workspace, 'service_account.client_keys_set', `service_account:${id} ("${bot.name}")`, detail);
      return client(bot, stored);
    },

    async removeServiceAccountClientKeys(actor, workspace, id) {
      const bot = await botOf(actor, workspace, id, 'remove service account keys');
      const removed = await accounts.serviceAccountClients.removeKeys(id);
      if (removed) await note(actor, workspace, 'service_account.client_keys_removed', `service_account:${id} ("${bot.name}")`);
      return { id, removed };
    },
  };
}
