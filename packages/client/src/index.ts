/**
 * @svc/client: the typed client of svc's management API (docs/management.md), published for
 * programs outside this repository. Every method, its parameters, query, body and answer come from
 * the operations declared once in the management contract (packages/management/src/contract);
 * `createClient()` sends them with fetch, `managementClient()` over a transport of one's own.
 */
import { managementClient } from '@svc/management/contract';

export { managementClient, MANAGEMENT_OPERATIONS, REFUSAL } from '@svc/management/contract';
export type {
  AnswerOf,
  BodyOf,
  CallResult,
  OperationDeclaration,
  OperationId,
  OperationOf,
  ParamsOf,
  Refusal,
} from '@svc/management/contract';

/** What a call's `response` holds: the HTTP status, the headers and the body (parsed JSON, else null). */
export interface HttpResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

/** A client with one method per operation (`client.createKey({ params, body })`), its answers typed. */
export type ManagementClient<R extends { status: number; body: unknown } = HttpResponse> = ReturnType<typeof managementClient<R>>;

/** Where and how `createClient()` sends its requests. */
export interface ClientOptions {
  /** The gateway's public origin, its BASE_URL (e.g. https://svc.example.com). */
  baseUrl: string;
  /** An API key sent as `X-API-Key`: a personal key, a service account's, or a project key of level ADMIN. */
  apiKey?: string;
  /** An OAuth access token granted `mcp:admin`, sent as `Authorization: Bearer` (docs/management.md). */
  accessToken?: string;
  /** The fetch to send with (a proxy's, a test's); the global fetch by default. */
  fetch?: typeof fetch;
}

/** The management API's client over fetch, with the credential of `options`. */
export function createClient(options: ClientOptions): ManagementClient {
  const send = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, '');
  const credential: Record<string, string> = {
    ...(options.apiKey ? { 'x-api-key': options.apiKey } : {}),
    ...(options.accessToken ? { authorization: `Bearer ${options.accessToken}` } : {}),
  };
  return managementClient(async (request): Promise<HttpResponse> => {
    const res = await send(base + request.path, {
      method: request.method,
      headers: {
        accept: 'application/json',
        ...credential,
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    });
    const text = await res.text();
    const json = text !== '' && (res.headers.get('content-type') ?? '').includes('json');
    return { status: res.status, headers: res.headers, body: json ? (JSON.parse(text) as unknown) : null };
  });
}
