/**
 * The SCIM 2.0 service provider (RFC 7643, RFC 7644; docs/auth-service.md "SCIM provisioning"),
 * one per workspace under `/scim/v2/<workspace>`: a pipeline of named steps (the workspace's bucket
 * and its bearer token, the bounded body, the resource's route), and one error step that answers
 * every refusal in RFC 7644 §3.12's shape (`@svc/errors` ScimError) and never a page or a stack.
 */
import express, { type ErrorRequestHandler, type NextFunction, type Request, type Response } from 'express';
import type { Accounts } from '@svc/accounts';
import { isStoreError } from '@svc/accounts';
import { ScimError, scimErrorBody, scimStatus } from '@svc/errors';
import type { Logger } from '@svc/logger';
import type { Management } from '@svc/management';
import { SCIM_MAX_BODY_BYTES, SCIM_REQUESTS_PER_MINUTE, type ScimDirectory, type ScimTokens, type SsoStore } from '@svc/sso';
import type { Throttle } from '../http/throttle.ts';
import { resourceTypes, schemas, serviceProviderConfig } from './discovery.ts';
import { groupRoutes } from './groups.ts';
import { scimProvisioning } from './provisioning.ts';
import { baseOf, sendScim, setCaller } from './respond.ts';
import { userRoutes } from './users.ts';

export interface ScimDeps {
  authUrl: string;
  accounts: Accounts;
  logger: Logger;
  throttle: Throttle;
  tokens: ScimTokens;
  directory: ScimDirectory;
  store: SsoStore;
  management: Pick<Management, 'endWorkspaceAccess' | 'clearTakenOver'>;
  endSessions: (userId: string) => Promise<number>;
  now?: () => number;
}

/** Express 5 passes a rejected promise to the error step; this names the handler for the router. */
type Handler = (req: Request, res: Response) => Promise<void>;

export function scimRouter(deps: ScimDeps): express.Router {
  const now = deps.now ?? Date.now;
  const provisioning = scimProvisioning(deps);
  const users = userRoutes({ directory: deps.directory, provisioning, now });
  const groups = groupRoutes({ directory: deps.directory, provisioning, now });
  const router = express.Router({ mergeParams: true });

  /** The workspace's bearer token (RFC 6750 §2.1); another workspace's token is no token here. */
  router.use(async function scimToken(req: Request, _res: Response, next: NextFunction) {
    const workspace = String(req.params['workspace']);
    const header = req.get('authorization') ?? '';
    const match = /^Bearer ([^\s]{1,200})$/i.exec(header);
    // A malformed value (no svc-scim- prefix, a wrong checksum) is refused before Redis is read.
    const token = match ? await deps.tokens.resolve(match[1]!) : null;
    if (!token || token.workspace !== workspace) {
      _res.set('WWW-Authenticate', 'Bearer realm="scim"');
      throw new ScimError('unauthorized', "Send this workspace's SCIM token as Authorization: Bearer svc-scim-...");
    }
    // The workspace's bucket (docs/auth-service.md "SCIM provisioning"), counted once the token is
    // accepted: a stranger's requests cannot spend the directory's share.
    const wait = await deps.throttle.attempt('scim', workspace, { limit: SCIM_REQUESTS_PER_MINUTE, windowSeconds: 60 });
    if (wait > 0) {
      _res.set('Retry-After', String(wait));
      throw new ScimError('too_many', `This workspace's SCIM requests are over ${SCIM_REQUESTS_PER_MINUTE} a minute; retry in ${wait} s.`);
    }
    setCaller(
      req,
      { workspace, tokenPrefix: token.prefix, source: req.ip ?? 'unknown' },
      `${deps.authUrl}/scim/v2/${encodeURIComponent(workspace)}`,
    );
    next();
  });
  router.use(express.json({ limit: SCIM_MAX_BODY_BYTES, type: ['application/scim+json', 'application/json'] }));

  const discovery =
    (make: (base: string) => unknown): Handler =>
    async (req, res) =>
      sendScim(res, 200, make(baseOf(req)));
  router.get('/ServiceProviderConfig', discovery(serviceProviderConfig));
  router.get('/ResourceTypes', discovery(resourceTypes));
  router.get('/Schemas', discovery(schemas));
  for (const [path, routes] of [
    ['/Users', users],
    ['/Groups', groups],
  ] as const) {
    router.get(path, routes.list);
    router.post(path, routes.create);
    router.get(`${path}/:id`, routes.get);
    router.put(`${path}/:id`, routes.replace);
    router.patch(`${path}/:id`, routes.patch);
    router.delete(`${path}/:id`, routes.remove);
  }
  router.post('/Bulk', () => {
    throw new ScimError('not_implemented', 'svc offers no bulk operations (ServiceProviderConfig bulk.supported is false).');
  });
  router.use(() => {
    throw new ScimError('not_found', 'No such SCIM endpoint: svc serves ServiceProviderConfig, ResourceTypes, Schemas, Users and Groups.');
  });
  router.use(scimErrors(deps.logger));
  return router;
}

/** Every refusal as RFC 7644 §3.12 writes it; a body the parser refused is the client's; anything else is logged, never shown. */
function scimErrors(logger: Logger): ErrorRequestHandler {
  return function scimErrors(err: unknown, req, res, _next) {
    let refusal: ScimError;
    const parser = err as { status?: unknown; type?: unknown };
    if (err instanceof ScimError) refusal = err;
    else if (parser?.type === 'entity.too.large')
      refusal = new ScimError('too_large', `A SCIM body is at most ${SCIM_MAX_BODY_BYTES} bytes.`);
    else if (typeof parser?.status === 'number' && parser.status >= 400 && parser.status < 500)
      refusal = new ScimError('invalidSyntax', 'The body is not JSON.');
    else if (isStoreError(err)) {
      logger.warn('SCIM request failed: Redis unreachable', { path: req.path });
      refusal = new ScimError('unavailable', 'svc cannot reach its store right now; retry shortly.');
    } else {
      logger.error('SCIM request failed', { path: req.path, err });
      refusal = new ScimError('failed', 'Something went wrong; retry, and tell svc if it persists.');
    }
    if (scimStatus(refusal.why) < 500) logger.info('SCIM request refused', { path: req.path, refusal: refusal.why });
    if (res.headersSent) return;
    sendScim(res, scimStatus(refusal.why), scimErrorBody(refusal.why, refusal.message));
  };
}
