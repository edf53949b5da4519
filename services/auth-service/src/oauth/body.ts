/**
 * docs/contract.md "Hosts and endpoints": the device-flow and token endpoints take JSON and form
 * bodies (as OAuth clients send). oidc-provider parses only form bodies there (its
 * lib/shared/selective_body.js; JSON was declined upstream, oidc-provider issue #589) but supports
 * a body consumed upstream: this step reads the body once, turns a JSON object into the equivalent form body, and
 * hands the form text on as `req.body`. `res.locals.oauthParams` gives our own pre-steps the values.
 * JSON is read by the one bounded reader (docs/security.md "Bounds"): a nested body is refused with
 * 400 before anything walks it.
 */
import { JsonBoundsError, parseJson } from '@svc/bounds';
import express, { type NextFunction, type Request, type Response } from 'express';
import { sendOAuthError } from '../http/oauth-error.ts';

/** oidc-provider's own limit for these bodies (selective_body.js LIMIT). */
const LIMIT = 56 * 1024;
const readText = express.text({ type: () => true, limit: LIMIT });

function toForm(value: unknown): URLSearchParams | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || v === null) continue;
    for (const item of Array.isArray(v) ? v : [v]) form.append(k, typeof item === 'object' ? JSON.stringify(item) : String(item));
  }
  return form;
}

export function oauthFormBody(req: Request, res: Response, next: NextFunction): void {
  if (req.method !== 'POST') return next();
  readText(req, res, (err?: unknown) => {
    if ((err as { type?: unknown } | undefined)?.type === 'entity.too.large')
      return sendOAuthError(res, 'too_large', `the request body is larger than the limit (${LIMIT} bytes)`);
    if (err) return sendOAuthError(res, 'invalid_request', 'the request body could not be read');
    const text = typeof req.body === 'string' ? req.body : '';
    if (req.is('application/json')) {
      let parsed: unknown;
      try {
        parsed = parseJson(text || '{}');
      } catch (err) {
        return sendOAuthError(res, 'invalid_request', err instanceof JsonBoundsError ? err.message : 'the request body is not valid JSON');
      }
      const form = toForm(parsed);
      if (!form) return sendOAuthError(res, 'invalid_request', 'the JSON body must be an object');
      req.headers['content-type'] = 'application/x-www-form-urlencoded';
      req.body = form.toString();
      res.locals['oauthParams'] = form;
    } else {
      res.locals['oauthParams'] = new URLSearchParams(req.is('application/x-www-form-urlencoded') ? text : '');
      req.body = text;
    }
    next();
  });
}

export function oauthParams(res: Response): URLSearchParams {
  return (res.locals['oauthParams'] as URLSearchParams | undefined) ?? new URLSearchParams();
}
