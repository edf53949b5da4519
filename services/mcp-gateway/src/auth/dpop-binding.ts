/**
 * The sender constraint of DPoP-bound access tokens (RFC 9449 §7; docs/auth-service.md "DPoP"):
 * a token bound to a key (its record's `jkt`) is accepted only with the DPoP scheme and a proof
 * signed by that key for this request; a bound token sent as a bearer token is refused (§7.2).
 * The proof's jti is checked against the replay cache by whoever makes the request's Redis call
 * (the rate-limit script, or `claimProof` when no charge is made).
 */
import { hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { K, type Redis } from '@svc/accounts';
import { SvcError } from '@svc/errors';
import type { ResolvedCaller } from './caller.ts';
import { credentialFrom } from './credentials-from-request.ts';
import { createDpopProofCheck, DPOP_REPLAY_TTL_SECONDS, replayed } from './dpop-proof.ts';

export interface DpopBindingDeps {
  /** The public base URL: the proof's htu is compared with it and the path, never with Host. */
  baseUrl: string;
  now: () => number;
}

/** A checked proof: the key its jti is remembered under (K.dpopProof). */
export interface CheckedProof {
  replayKey: string;
}

/** The request as the binding reads it. */
export interface BindingRequest {
  method: string;
  /** The path as sent, without the query. */
  path: string;
  headers: IncomingHttpHeaders;
}

export type DpopBinding = (req: BindingRequest, caller: ResolvedCaller) => null | Promise<CheckedProof>;

/** Null at once for a request that neither uses nor needs DPoP (API keys, bearer tokens that are not bound). */
export function createDpopBinding(deps: DpopBindingDeps): DpopBinding {
  const checkDpopProof = createDpopProofCheck();
  const invalid = (message: string, remedy: string) => new SvcError('invalid_token', { message, remedy, scheme: 'DPoP' });
  return (req, caller) => {
    const scheme = req.headers['x-api-key'] === undefined && /^DPoP\s/i.test(req.headers.authorization ?? '');
    if (!caller.jkt) {
      if (!scheme) return null;
      throw invalid(
        'Invalid OAuth token: this credential is not DPoP-bound',
        'Present it with Authorization: Bearer (or X-API-Key for an API key); the DPoP scheme is for DPoP-bound access tokens.',
      );
    }
    // RFC 9449 §7.2: a DPoP-bound token is never accepted as a bearer token.
    if (!scheme)
      throw invalid(
        'Invalid OAuth token: this access token is DPoP-bound and was sent as a bearer token',
        'Send it with Authorization: DPoP and a DPoP proof header signed by the key it is bound to (RFC 9449 §7.1).',
      );
    const jkt = caller.jkt;
    return checkDpopProof({
      header: req.headers['dpop'],
      method: req.method,
      url: `${deps.baseUrl}${req.path}`,
      accessToken: credentialFrom(req.headers)?.value ?? '',
      boundJkt: jkt,
      tenant: caller.payer.workspace,
      nowMs: deps.now(),
    }).then((proven) => ({ replayKey: K.dpopProof(caller.payer.workspace, hash('sha256', `${jkt} ${proven.jti}`, 'base64url')) }));
  };
}

/** The replay check made alone, for a request that makes no rate-limit call (RFC 9449 §11.1). */
export async function claimProof(redis: Redis, proof: CheckedProof): Promise<void> {
  const set = await redis.set(proof.replayKey, '1', 'EX', DPOP_REPLAY_TTL_SECONDS, 'NX');
  if (set !== 'OK') throw replayed();
}
