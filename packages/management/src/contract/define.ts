/**
 * How a management operation is declared (docs/management.md "The contract"): its method and path,
 * and its path parameters, query, body and answer as JSON Schemas. The gateway validates requests
 * with ajv against them, the OpenAPI document is built from them and the typed client's request
 * and answer types are derived from them (json-schema-to-ts, as the tools' argument types are).
 */
import { CURSOR_PATTERN, LIST_MAX_PAGE, LIST_PAGE } from '@svc/accounts/pages.ts';
import { APPROVAL_RULES } from '@svc/policy';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { OperationPolicy } from './policy.ts';

/** An object schema: the only shape a parameter set, a query, a body or an answer takes. */
export type ObjectSchema = Extract<JSONSchema, object> & { readonly type: 'object' };

/** One management operation, declared once. */
export interface OperationDeclaration {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path, with `{name}` for a parameter (one path segment, percent-decoded). */
  readonly path: string;
  /** What it does, in a few words (the OpenAPI summary). */
  readonly summary: string;
  /** Who may call it, step-up, confirmed address, audit, bucket, the setting it creates (policy.ts). */
  readonly policy: OperationPolicy;
  /** The statuses of a success: 201 when it creates something; several when the outcome decides. */
  readonly statuses: readonly [200 | 201 | 202, ...(200 | 201 | 202)[]];
  readonly params: ObjectSchema;
  readonly query?: ObjectSchema;
  /** POST and PATCH take a JSON object; the properties a client may send, with their defaults. */
  readonly body?: ObjectSchema;
  readonly answer: ObjectSchema;
  /** Set when a query can ask for the answer as a stream of JSON lines instead (the audit export). */
  readonly streams?: string;
}

/** Declares an operation, keeping its literal schema types (from which the TypeScript types come). */
export function defineOperation<const O extends OperationDeclaration>(op: O): O {
  return op;
}

/**
 * The types below test `undefined extends O[...]` rather than `O[...] extends ObjectSchema`:
 * comparing a literal schema with json-schema-to-ts's recursive JSONSchema type is what makes
 * tsc give up (TS2589).
 */

/** The path parameters of an operation. */
export type ParamsOf<O extends OperationDeclaration> = FromSchema<O['params']>;

/** The names of the `{parameters}` of a path, in the order the path names them. */
type PathParams<P extends string> = P extends `${string}{${infer N}}${infer Rest}` ? [N, ...PathParams<Rest>] : [];

/**
 * The path parameters of an operation as the arguments the management layer's method takes after
 * the actor: one string each, in the order its path names them (docs/management.md "The contract").
 */
export type PathArgsOf<O extends OperationDeclaration> = AsStrings<PathParams<O['path']>>;
type AsStrings<T extends string[]> = { [K in keyof T]: string };

/** The names of the `{parameters}` of `path`, in the order it names them. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}

/** The query an operation takes (every parameter optional), or nothing. */
export type QueryOf<O extends OperationDeclaration> = undefined extends O['query']
  ? Record<string, never>
  : FromSchema<NonNullable<O['query']>>;

/** The body a client sends: properties with a default may be left out. */
export type BodyOf<O extends OperationDeclaration> = undefined extends O['body']
  ? undefined
  : FromSchema<NonNullable<O['body']>, { keepDefaultedPropertiesOptional: true }>;

/** The body as the operation receives it once validated: ajv has filled every default. */
export type ValidBodyOf<O extends OperationDeclaration> = undefined extends O['body']
  ? Record<string, never>
  : FromSchema<NonNullable<O['body']>, { keepDefaultedPropertiesOptional: false }>;

/** An input as its schema describes it once checked, defaults filled: a body or a dashboard form. */
export type InputOf<S extends ObjectSchema> = FromSchema<S, { keepDefaultedPropertiesOptional: false }>;

/** The answer of a success. */
export type AnswerOf<O extends OperationDeclaration> = FromSchema<O['answer']>;

/** A success status the operation declares. */
export type StatusOf<O extends OperationDeclaration> = O['statuses'][number];

/** A time as ISO 8601, or null when there is none (never, not yet). */
export const WHEN = { type: ['string', 'null'], format: 'date-time' } as const;

/** Whether a call of a tool waits for an admin's approval (docs/approvals.md "The rule"). */
export const APPROVAL_RULE = {
  type: 'string',
  enum: APPROVAL_RULES,
  description:
    "none: runs at once; all: every call waits for an admin's approval; agents: calls with a third-party OAuth client's token wait; below:<LEVEL>: calls by a caller below LEVEL wait.",
} as const;

/** A string path parameter. */
export const segment = (description: string) => ({ type: 'string', description }) as const;

/**
 * The query of a paged list (docs/management.md "Lists and pages"): checked by parsePageQuery of
 * the management layer, which names the parameter it refuses.
 */
export const PAGE_QUERY = {
  type: 'object',
  properties: {
    cursor: { type: 'string', pattern: CURSOR_PATTERN, description: 'The `next_cursor` of the previous page, as it was given.' },
    limit: { type: 'integer', minimum: 1, maximum: LIST_MAX_PAGE, default: LIST_PAGE, description: 'Items per page.' },
  },
} as const;

/** The answer's cursor of the next page of a paged list. */
export const NEXT_CURSOR = {
  type: ['string', 'null'],
  description: 'Pass as `cursor` for the next page; null: this is the last page.',
} as const;
