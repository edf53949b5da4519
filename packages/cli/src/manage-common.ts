/**
 * What the management commands of `svc` share (docs/cli.md "Managing a project"): the caller, the
 * typed client of the management contract and option readers.
 */
import { LEVELS, managementClient, type CallResult, type OperationDeclaration } from '@svc/management/contract';
import type { KeyLevel } from '@svc/policy';
import { CliError, EXIT } from './errors.ts';
import { refusal, requestJson, type JsonResponse } from './http.ts';
import type { Io } from './run.ts';

export interface Caller {
  cred: { key: string };
  base: string;
}

export type Options = Record<string, unknown>;

export const need = (v: Options, name: string, example: string): string => {
  const value = v[name];
  if (typeof value !== 'string' || value === '') throw new CliError(`Give --${name}, e.g. ${example}.`, EXIT.usage);
  return value;
};

/** An option's text when it was given. */
export const given = (v: Options, name: string): string | undefined => (typeof v[name] === 'string' ? v[name] : undefined);

/** A level option (--level, --role): one of the levels in any case (`viewer` is VIEWER), or `fallback` when not given. */
export function levelOption(v: Options, name: string, fallback?: KeyLevel): KeyLevel {
  const value = given(v, name)?.toUpperCase() ?? fallback;
  const level = LEVELS.find((l) => l === value);
  if (!level) throw new CliError(`Give --${name} ${LEVELS.join('|')}.`, EXIT.usage);
  return level;
}

/** The management API's client for the current key. */
export const api = (c: Caller) =>
  managementClient((r) =>
    requestJson(`${c.base}${r.path}`, {
      method: r.method,
      headers: { 'X-API-Key': c.cred.key },
      ...(r.body === undefined ? {} : { body: r.body }),
    }),
  );

/** The answer of a call that succeeded; a refusal becomes the CliError of `what`. */
export async function answer<O extends OperationDeclaration, A>(call: Promise<CallResult<O, JsonResponse, A>>, what: string): Promise<A> {
  const r = await call;
  if (!r.ok) throw refusal(r.response, what);
  return r.body;
}

/** A new key: the summary on stderr, the key alone on stdout (or the JSON), and the warning. */
export function shownOnce(io: Io, k: { key: string }, summary: string): void {
  if (io.json) return io.secret(JSON.stringify(k, null, 2));
  io.err(summary);
  io.secret(k.key);
  io.err('Copy it now: it is not shown again. Keep it in an environment variable such as SVC_API_KEY, never in code.');
}

export async function workspaceOf(c: Caller, v: Options): Promise<string> {
  const named = given(v, 'workspace');
  if (named) return named;
  // GET /api/v1/me is an account route (docs/contract.md "Hosts and endpoints"), not a management operation.
  const res = await requestJson(`${c.base}/api/v1/me`, { headers: { 'X-API-Key': c.cred.key } });
  if (res.status >= 300) throw refusal(res, 'whoami');
  return String(res.body['workspace']);
}
