/**
 * An oidc-provider record as the storage adapter hands it to the library: read through the record
 * codec of @svc/accounts (oidc-records.ts), its `consumed` mark set on the payload; an unreadable
 * record is absent.
 */
import { readOidcRecord, type Redis } from '@svc/accounts';
import type { AdapterPayload } from 'oidc-provider';

export async function readProviderRecord(redis: Redis, key: string): Promise<AdapterPayload | undefined> {
  const stored = await readOidcRecord(redis, key);
  if (!stored) return undefined;
  const payload = stored.payload as AdapterPayload;
  if (stored.consumed !== null) payload.consumed = stored.consumed;
  return payload;
}
