/**
 * The error page of every route in front of oidc-provider: Redis unreachable is the store-down
 * answer (docs/operations.md "When Redis stops answering"), a body the parsers refused is the
 * client's problem said plainly, anything else a 500 that names nothing internal.
 */
import type { ErrorRequestHandler } from 'express';
import type { Redis } from '@svc/accounts';
import type { Logger } from '@svc/logger';
import { render } from '../ui/html.ts';
import { alertPage } from '../ui/layout.ts';
import { sendStoreDown, storeFailure } from './store-outage.ts';
import { pageRefusalOf, type PageRefusal } from '@svc/errors';

/** The error handler, mounted after the pages and before oidc-provider. */
export function pageErrors(deps: { redis: Redis; logger: Logger }): ErrorRequestHandler {
  const { redis, logger } = deps;
  return function pageErrors(err: unknown, req, res, _next) {
    if (storeFailure(redis, err)) {
      logger.warn('request failed: Redis unreachable', { path: req.path });
      if (!res.headersSent) sendStoreDown(req, res);
      return;
    }
    const clientError = requestProblem(err);
    if (clientError) {
      logger.info('request refused', { path: req.path, refusal: clientError.refusal, problem: clientError.text });
      if (!res.headersSent) render(res, alertPage('Request refused', clientError.text), { refusal: clientError.refusal });
      return;
    }
    logger.error('request failed', { path: req.path, err });
    if (res.headersSent) return;
    render(res, alertPage('Something went wrong', 'Something went wrong. Try again.'), { refusal: 'failed' });
  };
}

/** A body the parsers refused (too large, malformed, wrong charset): the client's problem, said plainly. */
function requestProblem(err: unknown): { refusal: PageRefusal; text: string } | null {
  const e = err as { status?: unknown; type?: unknown };
  if (typeof e?.status !== 'number' || e.status < 400 || e.status > 499) return null;
  if (e.type === 'entity.too.large') return { refusal: 'too_large', text: 'The form is too large. Nothing was changed.' };
  if (e.type === 'entity.parse.failed') return { refusal: 'invalid_form', text: 'The form could not be read. Nothing was changed.' };
  return { refusal: pageRefusalOf(e.status), text: 'The request could not be processed. Nothing was changed.' };
}
