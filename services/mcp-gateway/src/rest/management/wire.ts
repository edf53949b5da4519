/**
 * A management operation on the wire (docs/management.md "The contract"): the route of each
 * operation of the contract calls the management layer's method named by its id, and answers what
 * it returns; an operation whose layer takes or answers another shape than the wire's has a wire
 * adapter instead, in the one table of management-routes.ts. An adapter is typed by the
 * declaration: it is given the path parameters and the body as the schemas describe them
 * (validateManagementRequest has checked the body and filled its defaults) and must answer what
 * the answer schema says, with a status the declaration names.
 */
import type { Actor, Management } from '@svc/management';
import type { AnswerOf, OperationDeclaration, OperationId, OperationOf, ParamsOf, StatusOf, ValidBodyOf } from '@svc/management/contract';
import type { Exchange } from '../../pipeline/exchange.ts';

/** What an operation produced: a JSON answer (with its status), or a stream of JSON lines. */
export type Outcome = { status?: number; body: unknown } | { stream: AsyncIterable<string> };

/** What an operation is given besides the layer and the actor. */
export interface HandlerInput<P, B> {
  params: P;
  /** The query as sent; an operation that reads one checks it (the audit log: parseAuditQuery). */
  query: URLSearchParams;
  body: B;
}

/** A route of the management API: one operation of the contract and how it runs. */
export interface ManagementRoute {
  /** The operation id (the OpenAPI operationId, the typed client's name for it, the layer's method). */
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

/** What the adapter of `O` answers: the declared answer with a declared status, or (the audit export) a stream. */
type Answer<O extends OperationDeclaration> =
  { status?: StatusOf<O>; body: AnswerOf<O> } | (O['streams'] extends string ? { stream: AsyncIterable<string> } : never);

/** The wire adapter of an operation: the wire's input to the layer's call, the layer's answer to the wire's. */
type Adapter<O extends OperationDeclaration> = (
  m: Management,
  actor: Actor,
  input: HandlerInput<ParamsOf<O>, ValidBodyOf<O>>,
  ex: Exchange,
) => Promise<Answer<O>>;

/**
 * Wire adapters by operation id. A mapped type rather than one generic over every id: tsc derives
 * an operation's types only for the adapters written (a generic over every id exhausts it, TS2589).
 */
export type WireAdapters = { [I in OperationId]?: Adapter<OperationOf<I>> };

/** A time as ISO 8601, or null. */
export const iso = (ms: number | null | undefined): string | null => (ms === null || ms === undefined ? null : new Date(ms).toISOString());
