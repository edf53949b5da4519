/**
 * The management suites' typed client (the contract's managementClient over fetch) and the check
 * that every answer they received fits the OpenAPI document's schema for its operation and status.
 */
import assert from 'node:assert/strict';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { managementClient, type Refusal } from '@svc/management/contract';
import { outsideLoopBudget } from '@svc/testkit';
import { MANAGEMENT_ROUTES } from '../src/rest/management-steps.ts';

/** The declared route an answered request went to (the gateway's router matched it; this only names it). */
function declaredRoute(method: string, path: string) {
  return MANAGEMENT_ROUTES.find((r) => r.method === method && new RegExp(`^${r.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(path));
}

/** One answer as it came: what was asked and what was answered. */
export interface Answered {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

/** Sends one request as a client would, noting the answer in `log`. */
export async function send(url: string, log: Answered[], method: string, path: string, key: string | null, body?: unknown) {
  const res = await fetch(url + path, {
    method,
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  const parsed: unknown = text && (res.headers.get('content-type') ?? '').includes('application/json') ? JSON.parse(text) : null;
  log.push({ method, path, status: res.status, body: parsed });
  return { status: res.status, headers: res.headers, body: parsed };
}

/** The typed client of the management API for `key` (none: no credential), its answers noted in `log`. */
export function typedClient(url: string, key: string | null, log: Answered[]) {
  return managementClient((r) => send(url, log, r.method, r.path, key, r.body));
}

/** What a call of the typed client gives: a success with its declared answer, or a refusal as it came. */
type Outcome = { ok: true; status: number; body: unknown } | { ok: false; status: number; response: { body: unknown } };

/** The success of a call, with its answer typed by the operation's declaration; a refusal fails the test. */
export function success<R extends Outcome>(result: R, status?: number): Extract<R, { ok: true }> {
  if (!result.ok) assert.fail(`a success expected, got ${result.status} ${JSON.stringify(result.response.body)}`);
  if (status !== undefined) assert.equal(result.status, status);
  return result as Extract<R, { ok: true }>;
}

/** The refusal of a call with `status`, its body typed by the contract's REFUSAL (docs/errors.md); a success fails the test. */
export function refusal(result: Outcome, status: number): Refusal['error'] {
  if (result.ok) assert.fail(`a refusal expected, got ${result.status} ${JSON.stringify(result.body)}`);
  assert.equal(result.status, status, JSON.stringify(result.response.body));
  // The shape every refusal has; checkAnswers holds each against the document's Error schema (REFUSAL).
  return (result.response.body as Refusal).error;
}

interface Document {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
  components: { schemas: Record<string, unknown> };
}

/**
 * Checks every noted answer of a management operation against the document's schema for its
 * status (a refusal against the Error schema) and returns the operations answered with a success.
 */
export async function checkAnswers(url: string, log: readonly Answered[]): Promise<Set<string>> {
  const doc = (await (await fetch(`${url}/api/v1/openapi.json`)).json()) as Document;
  const succeeded = new Set<string>();
  // Compiling two dozen schemas with a third-party validator is the test's own work, not a request's.
  await outsideLoopBudget(() => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addFormat('date-time', (s: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(s) && !Number.isNaN(Date.parse(s)));
    ajv.addSchema({ $id: 'doc', components: doc.components });
    const compiled = new Map<string, ValidateFunction>();
    for (const a of log) {
      const route = declaredRoute(a.method, a.path.replace(/\?.*$/, ''));
      if (!route || a.body === null) continue;
      const match = { route };
      const responses = doc.paths[match.route.path]?.[a.method.toLowerCase()]?.responses;
      const response = responses?.[String(a.status)];
      assert.ok(response, `${a.method} ${match.route.path} answered ${a.status}, a status the document does not list`);
      let schema = response.content?.['application/json']?.schema;
      if (schema && typeof schema === 'object' && '$ref' in schema) schema = { $ref: `doc${String(schema.$ref)}` };
      assert.ok(schema, `${a.method} ${match.route.path} ${a.status} has no answer schema`);
      const at = `${a.method} ${match.route.path} ${a.status}`;
      let validate = compiled.get(at);
      if (!validate) compiled.set(at, (validate = ajv.compile(schema as object)));
      assert.ok(
        validate(a.body),
        `${a.method} ${a.path} ${a.status}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(a.body).slice(0, 300)}`,
      );
      if (a.status < 300) succeeded.add(match.route.id);
    }
  });
  return succeeded;
}
