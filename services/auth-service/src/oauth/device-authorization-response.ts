/**
 * Post-step of the device authorization endpoint (RFC 8628 §3.2). oidc-provider cannot make
 * letters-then-digits codes (lib/helpers/configuration.js allows one charset), so, as its notes
 * suggest, the issued DeviceCode gets our user code and is saved again; the response gains
 * `interval` (5) and a `verification_uri_complete` with the `code` parameter (docs/contract.md
 * "Device authorization response").
 */
import { randomInt } from 'node:crypto';
import type { Redis } from '@svc/accounts';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { OK } from '../store/redis-keys.ts';

/** docs/contract.md "Device authorization response": four of these letters, a hyphen, four digits. */
const USER_CODE_LETTERS = 'BCDFGHJKLMNPQRSTVWXZ';
export const POLL_INTERVAL_SECONDS = 5;

function generateUserCode(): string {
  let letters = '';
  let digits = '';
  for (let i = 0; i < 4; i++) letters += USER_CODE_LETTERS[randomInt(USER_CODE_LETTERS.length)];
  for (let i = 0; i < 4; i++) digits += String(randomInt(10));
  return `${letters}-${digits}`;
}

export function deviceAuthorizationResponse(deps: { redis: Redis; authUrl: string }) {
  return async function rewriteDeviceAuthorization(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
    await next();
    if (ctx.oidc?.route !== 'device_authorization' || ctx.status !== 200) return;
    const dc = ctx.oidc.entities.DeviceCode;
    const body = ctx.body as Record<string, unknown> | undefined;
    if (!dc || !body) return;
    const previous = dc.userCode;
    let code = generateUserCode();
    for (let i = 0; i < 5 && (await deps.redis.exists(OK.userCode(code.replace('-', '')))); i++) code = generateUserCode();
    dc.userCode = code.replace('-', '');
    await dc.save();
    if (previous) await deps.redis.del(OK.userCode(previous));
    ctx.body = {
      device_code: body['device_code'],
      user_code: code,
      verification_uri: `${deps.authUrl}/device`,
      verification_uri_complete: `${deps.authUrl}/device?code=${code}`,
      expires_in: body['expires_in'],
      interval: POLL_INTERVAL_SECONDS,
    };
  };
}
