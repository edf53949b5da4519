/**
 * A management route: an operation of the contract (@svc/management/contract) with the handler
 * that runs it on the management layer. The handler is typed by the declaration: it is given the
 * path parameters and the body as the schemas describe them (validateManagementRequest has
 * checked the body and filled its defaults) and must answer what the answer schema says.
 */
import type { Actor, Management } from '@svc/management';
import {
  MANAGEMENT_OPERATIONS,
  type AnswerOf,
  type OperationDeclaration,
  type OperationId,
  type OperationOf,
  type ParamsOf,
  type StatusOf,
  type ValidBodyOf,
} from '@svc/management/contract';
import type { Exchange } from '../../pipeline/exchange.ts';

/** What an operation produced: a JSON answer (with its status), or a stream of JSON lines. */
export type Outcome = { status?: number; body: unknown } | { stream: AsyncIterable<string> };

/** What a handler is given besides the layer and the actor. */
export interface HandlerInput<P, B> {
  params: P;
  /** The query as sent; an operation that reads one checks it (the audit log: parseAuditQuery). */
  query: URLSearchParams;
  body: B;
}

export interface ManagementRoute {
  /** The operation id (the OpenAPI operationId, the typed client's name for it). */
  id: OperationId;
  method: OperationDeclaration['method'];
  /** The path, with `{name}` for a parameter (one path segment). */
  path: string;
  /** What it does, in a few words. */
  name: string;
  declaration: OperationDeclaration;
  operation(
    m: Management,
    actor: Actor,
    input: HandlerInput<Record<string, string>, Record<string, unknown>>,
    ex: Exchange,
  ): Promise<Outcome>;
}

/** What the handler of `O` answers: the declared answer with a declared status, or (the audit export) a stream. */
type Answer<O extends OperationDeclaration> =
  { status?: StatusOf<O>; body: AnswerOf<O> } | (O['streams'] extends string ? { stream: AsyncIterable<string> } : never);

type Handler<O extends OperationDeclaration, P = ParamsOf<O>, B = ValidBodyOf<O>, A = Answer<O>> = (
  m: Management,
  actor: Actor,
  input: HandlerInput<P, B>,
  ex: Exchange,
) => Promise<A>;

/**
 * The route of operation `id`, run by `handler`. `H` is a defaulted parameter rather than
 * Handler<OperationOf<I>> inline: json-schema-to-ts's advice for generics, which keeps tsc from
 * "Type instantiation is excessively deep" (TS2589).
 */
export function handle<I extends OperationId, H = Handler<OperationOf<I>>>(id: I, handler: NoInfer<H>): ManagementRoute {
  const declaration: OperationDeclaration = MANAGEMENT_OPERATIONS[id];
  return {
    id,
    method: declaration.method,
    path: declaration.path,
    name: declaration.summary,
    declaration,
    // The runner validated the body against the declaration first (validateManagementRequest),
    // and the router matched every parameter the path names: the input is what Handler says.
    operation: handler as unknown as ManagementRoute['operation'],
  };
}

/** A time as ISO 8601, or null. */
export const iso = (ms: number | null | undefined): string | null => (ms === null || ms === undefined ? null : new Date(ms).toISOString());
