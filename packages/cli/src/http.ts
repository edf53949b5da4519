/**
 * JSON over HTTP for both CLIs. A server that cannot be reached becomes a CliError naming it and
 * the variables that choose it; a refusal keeps the server's own message (the error catalogue's
 * words on the gateway, RFC 6749 error bodies on the auth host).
 */
import { CliError, EXIT } from './errors.ts';
import { VERSION } from './version.ts';

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

export interface TextResponse {
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
}

/** One request with the CLI's headers; an unreachable server is a CliError naming it. A body that is a string is sent as it is. */
export async function requestText(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<TextResponse> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        accept: 'application/json',
        'user-agent': `svc-cli/${VERSION}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    const c = (err as { cause?: { code?: string; message?: string } }).cause;
    const cause = c?.code ?? c?.message ?? (err as Error).message;
    throw new CliError(
      `Cannot reach ${new URL(url).origin} (${cause}).`,
      EXIT.unreachable,
      'Is the service running? Choose the servers with --server, or SVC_BASE_URL and SVC_AUTH_URL.',
    );
  }
  return { status: res.status, statusText: res.statusText, headers: res.headers, text: await res.text() };
}

export async function requestJson(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<JsonResponse> {
  const res = await requestText(url, init);
  let body: Record<string, unknown> = {};
  if (res.text) {
    try {
      const parsed = JSON.parse(res.text) as unknown;
      body =
        parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { value: parsed };
    } catch {
      body = { error: { message: `${res.status} ${res.statusText}: the server did not answer JSON` } };
    }
  }
  return { status: res.status, headers: res.headers, body };
}

/** The human sentence in an error body of either host, with its remedy when there is one. */
export function serverMessage(res: JsonResponse): { message: string; remedy: string | undefined } {
  const err = res.body['error'];
  if (err && typeof err === 'object') {
    const e = err as { message?: unknown; remedy?: unknown; data?: { remedy?: unknown } };
    const remedy = e.remedy ?? e.data?.remedy;
    return { message: String(e.message ?? `HTTP ${res.status}`), remedy: typeof remedy === 'string' ? remedy : undefined };
  }
  if (typeof err === 'string') {
    const description = res.body['error_description'];
    return { message: typeof description === 'string' ? `${err}: ${description}` : err, remedy: undefined };
  }
  return { message: `HTTP ${res.status}`, remedy: undefined };
}

/** A CliError for a refused gateway request: 401 is an authentication problem, the rest a failure. */
export function refusal(res: JsonResponse, context: string): CliError {
  const { message, remedy } = serverMessage(res);
  return new CliError(`${context}: ${message}`, res.status === 401 ? EXIT.auth : EXIT.failed, remedy);
}
