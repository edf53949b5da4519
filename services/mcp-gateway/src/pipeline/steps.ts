/**
 * The steps every gateway route is made of (docs/gateway-pipeline.md). Each is named after what it
 * does; a route lists the ones it needs, in order, in app.ts's route table.
 */
import { allowedBy } from '@svc/accounts';
import { JsonBoundsError, parseJson } from '@svc/bounds';
import { SvcError } from '@svc/errors';
import type { Redis } from '@svc/accounts';
import type { Authenticate } from '../auth/authenticate.ts';
import { claimProof, type DpopBinding } from '../auth/dpop-binding.ts';
import { policyContext } from '../auth/policy-context.ts';
import { readBody } from '../http/body.ts';
import { checkMediaTypes, checkOrigin } from '../mcp/checks.ts';
import { idOf } from '../mcp/envelope.ts';
import type { Admit } from '../ratelimit/admit.ts';
import type { ResolvedCaller } from '../auth/caller.ts';
import { callerOf, type Exchange, type Step } from './exchange.ts';

/** MCP 2025-11-25 "Security Warning" and the media types: before anything is read. */
export function checkTransport(originAllowed: (origin: string) => boolean): Step {
  return function checkTransportStep(ex) {
    checkOrigin(ex.req.headers, originAllowed);
    checkMediaTypes(ex.req.headers);
  };
}

/** Only the origin (routes without a body). */
export function checkOriginOnly(originAllowed: (origin: string) => boolean): Step {
  return function checkOriginStep(ex) {
    checkOrigin(ex.req.headers, originAllowed);
  };
}

/** The body, up to the limit (413 past it). */
export function readJsonBody(maxBytes: number, options: { emptyIs?: unknown } = {}): Step {
  return async function readJsonBodyStep(ex) {
    ex.raw = await readBody(ex.req, maxBytes);
    if (options.emptyIs !== undefined && ex.raw.trim() === '') {
      ex.body = options.emptyIs;
      return;
    }
    try {
      ex.body = parseJson(ex.raw);
      // Error responses echo the request's id whenever the body could be read, from here on.
      if (ex.protocol === 'jsonrpc') ex.id = idOf(ex.body);
    } catch (err) {
      // Kept until the caller is known: a request without credentials gets the 401 first.
      ex.parseError =
        err instanceof JsonBoundsError
          ? new SvcError('body_too_complex', { message: `Request body too complex: ${err.message}`, data: { limit: err.limit } })
          : new SvcError('parse_error', {
              message: `Parse error: the body is not valid JSON (${err instanceof Error ? err.message : 'unreadable'})`,
              remedy:
                ex.protocol === 'rest' ? 'Send the tool arguments as a JSON object.' : 'Send a well-formed JSON-RPC 2.0 request object.',
            });
    }
  };
}

/** The parse error kept by readJsonBody, now that the caller is known. */
export const failOnParseError: Step = function failOnParseError(ex) {
  if (ex.parseError) throw ex.parseError;
};

/**
 * A key with an IP allow-list is refused (403) from any other address: the client's address as
 * TRUST_PROXY resolves it (ex.source), so a forged X-Forwarded-For counts only past named proxies.
 * The list came with the key record: no Redis command (docs/contract.md "Credentials").
 */
function fromAllowedAddress(caller: ResolvedCaller, source: string): ResolvedCaller {
  if (caller.allowedIps && !allowedBy(caller.allowedIps, source))
    throw new SvcError('access_denied', {
      message: 'API key not allowed from this address',
      remedy: "The key's IP allow-list does not hold your address: call from an allowed address, or ask a project admin to add it.",
      detail: `address ${source} not on the allow-list of ${caller.session}`,
      data: { address: source },
    });
  return caller;
}

/** Who is calling (cache, then Redis): 401 for missing or refused credentials. */
export interface AuthenticateOptions {
  /** The DPoP sender constraint, checked on every request, cached credential or not. */
  dpop: DpopBinding;
  /**
   * Where a DPoP proof's jti is claimed: `admit` leaves it to the route's rate-limit call (one
   * Redis round trip for both); a Redis client claims it here, for routes that make no such call.
   */
  claim: 'admit' | Redis;
}

/** Who is calling (cache, then Redis) and, for a DPoP-bound token, its proof: 401 for missing or refused credentials. */
export function authenticate(auth: Authenticate, options: AuthenticateOptions): Step {
  const { dpop, claim } = options;
  const known = (ex: Exchange, caller: ResolvedCaller): void | Promise<void> => {
    ex.caller = caller;
    if (caller.legacy) ex.legacy = true;
    const proof = dpop({ method: ex.req.method ?? '', path: ex.path, headers: ex.req.headers }, caller);
    if (!proof) return;
    if (claim === 'admit')
      return proof.then((checked) => {
        ex.proof = checked;
      });
    return proof.then((checked) => claimProof(claim, checked));
  };
  return function authenticateStep(ex) {
    const dpopScheme = /^DPoP\s/i.test(ex.req.headers.authorization ?? '');
    try {
      const caller = auth(ex.req.headers, ex.target);
      // A cached credential is known at once; only a lookup in Redis makes the step wait.
      if (caller instanceof Promise)
        return caller.then(
          (c) => known(ex, fromAllowedAddress(c, ex.source)),
          (err: unknown) => Promise.reject(challengedAs(err, dpopScheme)),
        );
      return known(ex, fromAllowedAddress(caller, ex.source));
    } catch (err) {
      throw challengedAs(err, dpopScheme);
    }
  };
}

/** RFC 9449 §7.1: a token refused under the DPoP scheme is challenged with the DPoP scheme. */
function challengedAs(err: unknown, dpopScheme: boolean): unknown {
  if (!dpopScheme || !(err instanceof SvcError) || err.code !== 'invalid_token' || err.scheme === 'DPoP') return err;
  return new SvcError('invalid_token', {
    message: err.message,
    remedy: err.remedy,
    ...(err.detail ? { detail: err.detail } : {}),
    data: err.data,
    scheme: 'DPoP',
  });
}

/** The policy's view of the caller on this request: role, plan, surface (X-Svc-Surface), endpoint. */
export const resolvePolicy: Step = function resolvePolicy(ex) {
  const { surface, policy } = policyContext(callerOf(ex), ex.req.headers, ex.target);
  ex.surface = surface;
  ex.policy = policy;
};

/**
 * The rate limit and monthly quota, charged to whoever pays for the request (docs/contract.md
 * "Who pays for a request"): at most one Redis round trip. A request refused before this step
 * consumed nothing; a tools/call counts a monthly query when its tool does.
 */
export function admit(admitFn: Admit, redis: Redis): Step {
  const settle = (ex: Exchange, headers: Record<string, string | number>): void => {
    ex.headers = { ...ex.headers, ...headers };
  };
  return function admitStep(ex) {
    const proof = ex.proof;
    ex.proof = null;
    // A refused call is charged nothing, but its DPoP proof is still used up (RFC 9449 §11.1).
    if (ex.prepared?.refusal) return proof ? claimProof(redis, proof) : undefined;
    const headers = admitFn(callerOf(ex), {
      countsAsQuery: ex.prepared?.countsAsQuery ?? false,
      tool: ex.prepared?.tool ? ex.prepared.name : null,
      cost: ex.prepared?.tool?.policy.cost ?? 1,
      proofKey: proof?.replayKey ?? null,
    });
    // Admitted at once (a leased block held its tokens): no promise, no microtask turn.
    return headers instanceof Promise ? headers.then((h) => settle(ex, h)) : settle(ex, headers);
  };
}
