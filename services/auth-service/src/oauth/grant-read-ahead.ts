/**
 * The token endpoint's reads started ahead and shared (docs/auth-service.md "Storage round trips";
 * store/request-storage.ts). oidc-provider reads a grant's records one after another; the keys of
 * most are known earlier:
 * - a refresh grant: the refresh token's record is read in the same round trip as the claim of its
 *   rotation (refresh-replay.ts), and once it is read, its Grant, its person and its project
 *   together;
 * - a service account's client-credentials grant: its account, keys and the project named by
 *   `resource` at once, before client authentication asks for the first of them.
 * Each lookup is read once per request and shared by the steps that check it (request-reads.ts:
 * the client lookup, findAccount, getResourceServerInfo); every check is made as before, on that
 * one snapshot.
 */
import type { Accounts, Redis, ServiceAccountClientMetadata } from '@svc/accounts';
import { serviceAccountClientMetadata } from '@svc/accounts';
import type { NextFunction, Request, Response } from 'express';
import { readProviderRecord } from '../store/provider-records.ts';
import { OK } from '../store/redis-keys.ts';
import { readAhead, sharedRead } from '../store/request-storage.ts';
import { readBot, readProject, readUser } from './request-reads.ts';
import { oauthParams } from './body.ts';
import { isServiceAccountClient } from './client-credentials.ts';
import { projectOfResource } from './resource.ts';

export interface ReadAheadDeps {
  redis: Redis;
  accounts: Accounts;
  baseUrl: string;
}

/** A live service account's OAuth client (its keys set), or null: what the adapter answers for its client id. */
export async function readServiceAccountClient(accounts: Accounts, id: string): Promise<ServiceAccountClientMetadata | null> {
  const [bot, keys] = await Promise.all([
    readBot(accounts, id),
    sharedRead(`bot-keys:${id}`, () => accounts.serviceAccountClients.getKeys(id)),
  ]);
  if (!bot || bot.revoked || !bot.name || !bot.workspace || !keys) return null;
  return serviceAccountClientMetadata(id, bot.name, keys);
}

/** Starts a refresh grant's reads: the refresh token's record now; once read, its Grant, its person and its project. */
export function readRefreshAhead(deps: ReadAheadDeps, token: string): void {
  const key = OK.model('RefreshToken', token);
  readAhead(key, async () => {
    const record = await readProviderRecord(deps.redis, key);
    const grantId = record?.grantId;
    if (typeof grantId === 'string')
      readAhead(OK.model('Grant', grantId), () => readProviderRecord(deps.redis, OK.model('Grant', grantId)));
    if (typeof record?.accountId === 'string') void readUser(deps.accounts, record.accountId);
    const slug = typeof record?.resource === 'string' ? projectOfResource(deps.baseUrl, record.resource) : null;
    if (slug) void readProject(deps.accounts, slug);
    return record;
  });
}

/** Express pre-step of the token endpoint: a service account's client-credentials reads, started together. */
export function readClientCredentialsAhead(deps: ReadAheadDeps) {
  return function readGrantAhead(_req: Request, res: Response, next: NextFunction): void {
    const params = oauthParams(res);
    const clientId = params.get('client_id');
    if (params.get('grant_type') === 'client_credentials' && clientId && isServiceAccountClient(clientId)) {
      void readServiceAccountClient(deps.accounts, clientId);
      const slug = projectOfResource(deps.baseUrl, params.get('resource') ?? '');
      if (slug) void readProject(deps.accounts, slug);
    }
    next();
  };
}
