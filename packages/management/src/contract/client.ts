/**
 * A typed client of the management API, derived from the declarations: the request's parameters,
 * query and body and the answer's type are those of the operation's schemas. It is given how to
 * send (a transport), so the CLI keeps its own errors for an unreachable server and the tests
 * their own fetch.
 */
import type { AnswerOf, BodyOf, ObjectSchema, OperationDeclaration, ParamsOf, QueryOf, StatusOf } from './define.ts';
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
export type CallInput<O extends OperationDeclaration> = (O['params'] extends { required: readonly [string, ...string[]] }
  ? { params: ParamsOf<O> }
  : { params?: ParamsOf<O> }) & { query?: { [K in keyof QueryOf<O>]?: QueryOf<O>[K] | string } } & (O['body'] extends ObjectSchema
    ? { body: BodyOf<O> }
    : { body?: undefined });

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

/** A client whose `call(id, input)` sends the operation `id` over `transport`. */
export function managementClient<R extends { status: number; body: unknown }>(transport: Transport<R>) {
  return {
    // O and A are defaulted parameters (json-schema-to-ts's advice for generics, against TS2589).
    async call<I extends OperationId, O extends OperationDeclaration = OperationOf<I>, A = AnswerOf<O>>(
      id: I,
      input: NoInfer<CallInput<O>>,
    ): Promise<CallResult<O, R, A>> {
      const op: OperationDeclaration = MANAGEMENT_OPERATIONS[id];
      // Read as its plain shape: comparing the derived type with it would cost tsc more than it checks.
      const { params, query, body } = input as unknown as {
        params?: Record<string, unknown>;
        query?: Record<string, unknown>;
        body?: unknown;
      };
      const response = await transport({
        method: op.method,
        path: pathOf(op, params, query),
        ...(op.body ? { body: body ?? {} } : {}),
      });
      if (!op.statuses.includes(response.status as 200)) return { ok: false, status: response.status, response };
      // The gateway answers what the declaration says (the management suite checks every answer
      // against the OpenAPI document built from it), so the body is typed here, once.
      return { ok: true, status: response.status as StatusOf<O>, body: response.body as A, response };
    },
  };
}
