/**
 * The storage adapter's part of "every single-use value is claimed with one atomic write"
 * (docs/security.md "Single-use values").
 *
 * oidc-provider's `ReplayDetection.unique()` (lib/models/replay_detection.js) finds the value's
 * record, then saves one: two requests carrying one client assertion (RFC 7523 §3 item 7) or one
 * DPoP proof (RFC 9449 §11.1) could both find nothing and both pass. So for that model the
 * adapter's find() is the claim: one SET NX, and only the caller whose SET created the key hears
 * "not found"; the upsert that follows sets the value's own window.
 *
 * The consumable models (codes, refresh tokens, PAR requests, CIBA requests) are found, checked
 * for `consumed`, then consumed: the adapter's consume() claims the record in one script
 * (consumeOidcRecord of @svc/accounts) and refuses every other caller with the provider's own
 * error, which the token endpoint answers as a 400 like a sequential reuse; a code's (or device
 * code's) loser also revokes its grant, as a sequential reuse does (REVOKES_ON_REUSE).
 *
 * A device code's user code, confirmed at /device, is found, checked for `inFlight`, then saved
 * `inFlight` (lib/actions/code_verification.js): the adapter's upsert() of that save is the claim.
 */
import { oidcDigest, type Redis } from '@svc/accounts';
import { errors, type AdapterPayload } from 'oidc-provider';
import { CLIENT_ASSERTION_MAX_LIFETIME_SECONDS } from '../oauth/client-credentials.ts';
import { OK } from '../store/redis-keys.ts';

/** oidc-provider's model whose every record is a single-use claim. */
export const REPLAY_MODEL = 'ReplayDetection';

/** oidc-provider's default `clockTolerance`, which this configuration keeps. */
const PROVIDER_CLOCK_TOLERANCE_SECONDS = 15;

/**
 * How long a claim holds before its upsert gives it the value's own window: the longest window any
 * caller asks for, so a claim whose upsert never lands still outlives the value. A client
 * assertion lives at most CLIENT_ASSERTION_MAX_LIFETIME_SECONDS plus the clock tolerance; a DPoP
 * proof or an attestation PoP, 300 s (the library's CHALLENGE_OK_WINDOW).
 */
const REPLAY_CLAIM_SECONDS = CLIENT_ASSERTION_MAX_LIFETIME_SECONDS + PROVIDER_CLOCK_TOLERANCE_SECONDS;

/**
 * The adapter's find() for ReplayDetection: claims `id` (one SET NX with expiry). The claimer gets
 * undefined ("never seen", so `unique()` goes on to save it); every other caller a stand-in record.
 */
export async function claimReplay(redis: Redis, id: string): Promise<AdapterPayload | undefined> {
  const claimed = await redis.set(OK.replay(oidcDigest(id)), '1', 'EX', REPLAY_CLAIM_SECONDS, 'NX');
  if (claimed !== null) return undefined;
  // Only its presence is read (`if (found) return false`); it must pass the model's expiry check.
  const now = Math.floor(Date.now() / 1000);
  return { jti: id, kind: REPLAY_MODEL, iat: now, exp: now + REPLAY_CLAIM_SECONDS };
}

/** The adapter's upsert() for ReplayDetection: the claim now lasts the value's own window (none given: the claim's). */
export async function keepReplay(redis: Redis, id: string, expiresIn: number): Promise<void> {
  if (expiresIn > 0) await redis.set(OK.replay(oidcDigest(id)), '1', 'EX', expiresIn);
}

/** How the library names each consumable model in its own "already consumed" errors. */
const CONSUMABLE_LABELS: Record<string, string> = {
  AuthorizationCode: 'authorization code',
  DeviceCode: 'device code',
  RefreshToken: 'refresh token',
  BackchannelAuthenticationRequest: 'backchannel authentication request',
  PreAuthorizedCode: 'pre-authorized code',
};

/**
 * The grant sources whose reuse revokes their grant (RFC 6749 §4.1.2; the library's
 * consumeGrantSource does it for a reuse in sequence). A refresh token is not among them: its
 * concurrent exchanges are answered with the one pair (oauth/refresh-replay.ts).
 */
export const REVOKES_ON_REUSE = new Set(['AuthorizationCode', 'DeviceCode', 'BackchannelAuthenticationRequest']);

/**
 * The error for a consume that lost its record (`used`: another request consumed it first;
 * `absent`: it was revoked or expired since it was found): what oidc-provider throws for the same
 * record reused in sequence (RFC 6749 §5.2 invalid_grant; a PAR request_uri, RFC 9126 §4).
 */
export function consumeRefused(model: string, outcome: 'used' | 'absent'): Error {
  if (model === 'PushedAuthorizationRequest') return new errors.InvalidRequestUri('request_uri is invalid, expired, or was already used');
  const label = CONSUMABLE_LABELS[model] ?? 'grant';
  return new errors.InvalidGrant(outcome === 'used' ? `${label} already consumed` : `${label} not found`);
}

/**
 * The save that marks a device code in flight: its user code was confirmed at /device (RFC 8628
 * §3.3) and an interaction begins. Later saves of the same code carry the approval (`accountId`)
 * or the refusal (`error`).
 */
export const confirmsUserCode = (model: string, payload: AdapterPayload): boolean =>
  model === 'DeviceCode' && payload.inFlight === true && !payload.accountId && !payload.error;

/**
 * What the library throws for a user code confirmed before (lib/helpers/re_render_errors.js
 * `AlreadyUsedError`): its error handler renders the code entry page with it (device-pages.ts
 * reads the name), status 200, as for a code confirmed in sequence.
 */
class UserCodeAlreadyUsed extends Error {
  override readonly name = 'AlreadyUsedError';
  readonly status = 200;
  readonly statusCode = 200;
  readonly expose = true;
  constructor() {
    super('code has already been used');
  }
}

/**
 * Claims the confirmation of device code `id` (one SET NX for the code's remaining life) before
 * the adapter saves it in flight: of any number of requests confirming one user code at once,
 * one begins an interaction; every other gets the "already used" page.
 */
export async function claimUserCode(redis: Redis, id: string, expiresIn: number): Promise<void> {
  const claimed = await redis.set(OK.userCodeClaim(oidcDigest(id)), '1', 'EX', Math.max(1, Math.ceil(expiresIn)), 'NX');
  if (claimed === null) throw new UserCodeAlreadyUsed();
}
