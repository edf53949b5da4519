/** What resolving a credential answers (resolve-credential.ts): the caller, or the refusal docs/contract.md "Errors" names. */
import { SvcError } from '@svc/errors';
import type { ResolvedCaller } from './caller.ts';
import type { Resolution } from './resolution-cache.ts';

export const invalidKey = (detail: string, remedy?: string) => ({
  ok: false as const,
  error: new SvcError('invalid_api_key', { detail, ...(remedy ? { remedy } : {}) }),
});
/** A disabled key says so (its holder learns nothing new: it is their key), and how it comes back. */
export const disabledKey = (id: string) => ({
  ok: false as const,
  error: new SvcError('invalid_api_key', {
    message: 'API key disabled',
    remedy: 'This key is disabled: a project admin can enable it again (svc key enable, or the dashboard).',
    detail: `key ${id} is disabled`,
  }),
});
export const invalidToken = (detail: string) => ({ ok: false as const, error: new SvcError('invalid_token', { detail }) });
export const notFound = (what: string) => ({ ok: false as const, error: new SvcError('not_found', { message: `Not found: ${what}` }) });
export const ok = (caller: ResolvedCaller): Resolution => ({ ok: true, caller });
