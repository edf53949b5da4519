/**
 * One bounded HTTP request of `svc doctor` (docs/cli.md "svc doctor"): a time limit over the whole
 * exchange (redirects and body included) and a byte limit on the body, so a slow or hostile server
 * costs at most that. Redirects are followed only within the origin asked; one to another origin
 * is recorded and shown, never followed, as is a loop. Nothing here throws: every outcome,
 * failures included, is a ProbeResult the findings read.
 */
import { VERSION } from '../version.ts';

export interface Bounds {
  /** The most one probe may take, redirects and body included. */
  timeoutMs: number;
  /** The most of a body read; a longer one is a failure (`too-large`). */
  maxBytes: number;
  /** Same-origin redirects followed before giving up. */
  maxRedirects: number;
}

export const DEFAULT_BOUNDS: Bounds = { timeoutMs: 5_000, maxBytes: 256 * 1024, maxRedirects: 5 };

/** Why a probe got no answer to read. */
export type ProbeFailure = 'timeout' | 'unreachable' | 'too-large' | 'redirect-loop' | 'too-many-redirects' | 'cross-origin-redirect';

export interface Hop {
  status: number;
  from: string;
  to: string;
}

export interface ProbeRequest {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface ProbeResult {
  method: string;
  url: string;
  /** The status of the last answer read (a redirect's, when the redirect was not followed). */
  status: number | null;
  /** The last answer's headers, names in lower case. */
  headers: Record<string, string>;
  /** The body, when it was read whole within the bounds. */
  text: string;
  /** The body as JSON, when it is. */
  json: unknown;
  redirects: Hop[];
  failure?: ProbeFailure;
  /** What went wrong, in words (the network error's code, the redirect's target, the bound). */
  detail?: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Reads at most `max` bytes of `res`'s body; null when it is longer. */
async function boundedText(res: Response, max: number): Promise<string | null> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function networkCause(err: unknown): { failure: ProbeFailure; detail: string } {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string; name?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.cause?.name === 'TimeoutError')
    return { failure: 'timeout', detail: 'no answer in time' };
  return { failure: 'unreachable', detail: e.cause?.code ?? e.cause?.message ?? e.message ?? String(err) };
}

/** Sends `req` within `bounds`; every outcome is a result. */
export async function probe(req: ProbeRequest, bounds: Bounds): Promise<ProbeResult> {
  let method = req.method ?? 'GET';
  let body = req.body;
  const result: ProbeResult = { method, url: req.url, status: null, headers: {}, text: '', json: undefined, redirects: [] };
  const signal = AbortSignal.timeout(bounds.timeoutMs);
  const seen = new Set<string>([req.url]);
  let url = req.url;
  try {
    for (;;) {
      const res = await fetch(url, {
        method,
        headers: { 'user-agent': `svc-doctor/${VERSION}`, ...req.headers },
        ...(body === undefined ? {} : { body }),
        redirect: 'manual',
        signal,
      });
      result.status = res.status;
      result.headers = Object.fromEntries([...res.headers].map(([k, v]) => [k.toLowerCase(), v]));
      const location = res.headers.get('location');
      if (REDIRECTS.has(res.status) && location !== null) {
        await res.body?.cancel().catch(() => undefined);
        const to = new URL(location, url).href;
        result.redirects.push({ status: res.status, from: url, to });
        const stop = redirectStop(req.url, to, seen, result.redirects.length, bounds);
        if (stop) return { ...result, ...stop };
        seen.add(to);
        url = to;
        // RFC 9110 §15.4: 301-303 may turn a POST into a GET; 307 and 308 keep the method and body.
        if (res.status === 303 || (res.status !== 307 && res.status !== 308 && method === 'POST')) [method, body] = ['GET', undefined];
        continue;
      }
      const text = await boundedText(res, bounds.maxBytes);
      if (text === null) return { ...result, failure: 'too-large', detail: `body over ${bounds.maxBytes} bytes, not read` };
      return { ...result, text, json: parseJson(text) };
    }
  } catch (err) {
    return { ...result, ...networkCause(err) };
  }
}

/** Why a redirect to `to` is not followed, or null when it is. */
function redirectStop(
  first: string,
  to: string,
  seen: Set<string>,
  hops: number,
  bounds: Bounds,
): { failure: ProbeFailure; detail: string } | null {
  if (new URL(to).origin !== new URL(first).origin)
    return { failure: 'cross-origin-redirect', detail: `redirects to ${to} (another origin: not followed)` };
  if (seen.has(to)) return { failure: 'redirect-loop', detail: `redirects back to ${to}` };
  if (hops > bounds.maxRedirects) return { failure: 'too-many-redirects', detail: `more than ${bounds.maxRedirects} redirects` };
  return null;
}

/** The JSON object a probe answered with 200, or null. */
export function documentOf(r: ProbeResult | undefined): Record<string, unknown> | null {
  if (!r || r.failure || r.status !== 200) return null;
  const j = r.json;
  return j !== null && typeof j === 'object' && !Array.isArray(j) ? (j as Record<string, unknown>) : null;
}

/** What a probe saw, in a few words: the failure, or the status (and where it redirected). */
export function seen(r: ProbeResult): string {
  if (r.failure) return r.detail ?? r.failure;
  const via = r.redirects.length ? ` after ${r.redirects.length} redirect${r.redirects.length > 1 ? 's' : ''}` : '';
  return `${r.status}${via}`;
}
