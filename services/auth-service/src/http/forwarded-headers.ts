/**
 * oidc-provider runs on Koa, whose proxy support is a switch (believe X-Forwarded-* or not) with no
 * list of trusted addresses. Express has already decided the client's address, protocol and host
 * from TRUST_PROXY (docs/operations.md "Proxies"), so the provider is handed exactly that decision
 * as the only forwarding headers it sees; whatever a client wrote in them, or in `Forwarded` and
 * `X-Real-IP`, never reaches it.
 */
import type { Request } from 'express';

export function forwardedAsResolved(req: Request): void {
  const h = req.headers;
  delete h['forwarded'];
  delete h['x-real-ip'];
  h['x-forwarded-for'] = req.ip ?? '';
  h['x-forwarded-proto'] = req.protocol;
  h['x-forwarded-host'] = req.host;
}
