/**
 * The steps several routes share (docs/gateway-pipeline.md), each configured once: the origin and
 * transport checks, the body readers, authentication (its DPoP proof claimed at once, or folded
 * into the rate-limit call) and the rate-limit charge.
 */
import type { Redis } from '@svc/accounts';
import type { Config } from '@svc/config';
import type { Authenticate } from '../auth/authenticate.ts';
import { createDpopBinding } from '../auth/dpop-binding.ts';
import type { Admit } from '../ratelimit/admit.ts';
import { admit, authenticate, checkOriginOnly, checkTransport, readJsonBody } from './steps.ts';

/** What the shared steps read. */
export interface SharedStepsDeps {
  config: Pick<Config, 'baseUrl' | 'maxBodyBytes'>;
  redis: Redis;
  authenticate: Authenticate;
  admit: Admit;
  originAllowed: (origin: string) => boolean;
  now: () => number;
}

/** The shared steps, by the name the routes give them. */
export function sharedSteps(deps: SharedStepsDeps) {
  const { config, redis } = deps;
  const dpop = createDpopBinding({ baseUrl: config.baseUrl, now: deps.now });
  return {
    checkTransport: checkTransport(deps.originAllowed),
    checkOrigin: checkOriginOnly(deps.originAllowed),
    readBody: readJsonBody(config.maxBodyBytes),
    readBodyOrEmpty: readJsonBody(config.maxBodyBytes, { emptyIs: {} }),
    // Routes without a rate-limit call claim a DPoP proof's jti at once; the MCP and REST tool
    // routes fold it into their one rate-limit call (docs/auth-service.md "DPoP").
    authenticate: authenticate(deps.authenticate, { dpop, claim: redis }),
    authenticateThenCharge: authenticate(deps.authenticate, { dpop, claim: 'admit' }),
    admit: admit(deps.admit, redis),
  };
}
