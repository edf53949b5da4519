/**
 * Pre-step of the device authorization endpoint. docs/contract.md "Client profiles" rule 5 and the
 * code endpoint's fields ("Device flow"): `auto_provision` is accepted only with the client profile create-svc, and rejected for
 * unregistered client IDs (invalid_client) and for every other profile (invalid_request).
 * `project_name` (the name create-svc gives the project, by default its folder's) goes only with
 * `auto_provision=true` and is 1 to MAX_PROJECT_NAME characters without control or bidirectional characters.
 */
import type { NextFunction, Request, Response } from 'express';
import { clientProfile, nameProblem, type Redis } from '@svc/accounts';
import { isProfile } from './clients.ts';
import { OK } from '../store/redis-keys.ts';
import { oauthParams } from './body.ts';
import { MAX_PROJECT_NAME } from './personal-project.ts';
import { sendOAuthError } from '../http/oauth-error.ts';

export function autoProvisionCheck(deps: { redis: Redis }) {
  return async function checkAutoProvision(req: Request, res: Response, next: NextFunction): Promise<void> {
    const params = oauthParams(res);
    if (params.has('project_name')) {
      const name = params.get('project_name') ?? '';
      if (params.get('auto_provision') !== 'true')
        return sendOAuthError(res, 'invalid_request', 'project_name goes only with auto_provision=true');
      // docs/management.md "Names": the rule every project name follows.
      if (nameProblem('project', name, MAX_PROJECT_NAME))
        return sendOAuthError(
          res,
          'invalid_request',
          `project_name must be 1 to ${MAX_PROJECT_NAME} characters without control or bidirectional characters`,
        );
    }
    if (!params.has('auto_provision')) return next();
    const clientId = params.get('client_id') ?? '';
    const registered = isProfile(clientId) || (clientId.length < 300 && (await deps.redis.exists(OK.model('Client', clientId))) === 1);
    if (!registered) return sendOAuthError(res, 'invalid_client', 'client not found: auto_provision needs a registered client');
    if (!clientProfile(clientId).autoProvision) {
      return sendOAuthError(res, 'invalid_request', 'auto_provision is accepted only with client_id create-svc');
    }
    if (!['true', 'false'].includes(params.get('auto_provision') ?? '')) {
      return sendOAuthError(res, 'invalid_request', 'auto_provision must be a boolean');
    }
    // The key is for the person's own project, made or found on the consent page: a resource
    // beside it would name another (docs/auth-service.md "What a token is for").
    if (params.get('auto_provision') === 'true' && params.has('resource'))
      return sendOAuthError(res, 'invalid_target', 'auto_provision=true is for your own project: send no resource with it');
    next();
  };
}
