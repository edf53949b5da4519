/**
 * A typed client of the management API, derived from the declarations: the request's parameters,
 * query and body and the answer's type are those of the operation's schemas. It is given how to
 * send (a transport), so the CLI keeps its own errors for an unreachable server and the tests
 * their own fetch.
 */
import type { AnswerOf, BodyOf, OperationDeclaration, ParamsOf, QueryOf, StatusOf } from './define.ts';
import { MANAGEMENT_OPERATIONS, type OperationId, type OperationOf } from './operations.ts';

/** What a transport is asked to send: a path with its query, relative to the API's base. */
export interface ApiRequest {
  method: OperationDeclaration['method'];
  path: string;
  body?: unknown;
}

/** Sends one request; `R` is the transport's own response (the CLI's JsonResponse, a test's). */
export type Transport<R extends { status: number; body: unknown }> = (request: ApiRequest) => Promise<R>;

/** What a call takes: its path parameters, the query (a value as typed, or its text) and, for POST and PATCH, the body. */
export type CallInput<O extends OperationDeclaration> = (O['params']['required'] extends readonly [string, ...string[]]
  ? { params: ParamsOf<O> }
  : { params?: ParamsOf<O> }) & { query?: { [K in keyof QueryOf<O>]?: QueryOf<O>[K] | string } } & (undefined extends O['body']
    ? { body?: undefined }
    : { body: BodyOf<O> });

/** A success with the declared answer, or a refusal with the transport's response as it came. */
export type CallResult<O extends OperationDeclaration, R, A = AnswerOf<O>> =
  { ok: true; status: StatusOf<O>; body: A; response: R } | { ok: false; status: number; response: R };

/** The path of `op` with `params` in it, each percent-encoded, and the query's given values. */
function pathOf(op: OperationDeclaration, params: Record<string, unknown> = {}, query: Record<string, unknown> = {}): string {
  const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String(params[name] ?? '')));
  const q = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== null) q.set(name, String(value));
  const text = q.toString();
  return text ? `${path}?${text}` : path;
}

/** One method per operation, named by its id, typed by its declaration. */
export type ManagementCalls<R> = {
  [I in OperationId]: (input: CallInput<OperationOf<I>>) => Promise<CallResult<OperationOf<I>, R>>;
};

/**
 * A client with a method per operation (`client.createKey({ params, body })`) sending it over
 * `transport`. A mapped type rather than one generic `call(id, input)`: tsc derives each
 * operation's types only when that method is used (a generic over every id exhausts it, TS2589).
 */
export function managementClient<R extends { status: number; body: unknown }>(transport: Transport<R>): ManagementCalls<R> {
  async function call(
    op: OperationDeclaration,
    input: { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown },
  ) {
    const response = await transport({
      method: op.method,
      path: pathOf(op, input.params, input.query),
      ...(op.body ? { body: input.body ?? {} } : {}),
    });
    if (!op.statuses.includes(response.status as 200)) return { ok: false, status: response.status, response };
    // The gateway answers what the declaration says (the management suite checks every answer
    // against the OpenAPI document built from it): the body takes the declared type here, once.
    return { ok: true, status: response.status, body: response.body, response };
  }
  const entries = Object.entries(MANAGEMENT_OPERATIONS).map(([id, op]) => [id, (input: object) => call(op, input)]);
  return Object.fromEntries(entries) as ManagementCalls<R>;
}
