/**
 * What a password reset or change ends besides sessions (docs/auth-service.md "What a new password
 * ends"): every personal key of the person and every OAuth grant they gave an app. Both could have
 * been obtained by whoever held the old password (approving a device or an app from a stolen
 * session). Project keys and service-account keys are not personal: they belong to the project or
 * workspace, other people may depend on them, and the key list shows them to the project's admins.
 */
import type { ApiKeyStore } from './api-keys.ts';
import type { OAuthGrantStore } from './oauth-grants.ts';

/** Revokes the person's personal keys and OAuth grants: how many of each ended. */
export async function endPersonalCredentials(
  accounts: { keys: ApiKeyStore; oauthGrants: OAuthGrantStore },
  userId: string,
): Promise<{ keys: number; apps: number }> {
  let keys = 0;
  for (const key of await accounts.keys.listForUser(userId)) {
    if (key.kind !== 'user_key' || key.revoked) continue;
    await accounts.keys.revoke(key.id);
    keys++;
  }
  let apps = 0;
  for (const grant of await accounts.oauthGrants.listForUser(userId)) {
    await accounts.oauthGrants.revoke(grant.id);
    apps++;
  }
  return { keys, apps };
}
