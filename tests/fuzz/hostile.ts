/**
 * Hostile structure (docs/security.md "Bounds"): generators of bodies and headers that push one
 * bound at a time on every entry point of both services that reads a body: nesting deeper than
 * the JSON reader allows, more values than it allows, one key or element repeated, strings and
 * bodies past the size limits, a header past the header limit. Each case says which bound it
 * breaks and so which status the answer must have; a case inside every bound must not be refused
 * for one.
 */
import fc from 'fast-check';
import { HTTP_SERVER_BOUNDS, JSON_BOUNDS } from '@svc/bounds';
import { MANAGEMENT_ROUTES } from '@svc/mcp-gateway/rest/management-steps.ts';
import type { FuzzRequest, Seeds } from './requests.ts';

/** What the answer to a hostile case must be. */
export interface Expectation {
  /** The bound broken, or 'none' for a case inside every bound. */
  bound: 'depth' | 'values' | 'body-size' | 'header-size' | 'none';
  /** Statuses allowed; for 'none' any status under 500 except the bound refusals. */
  statuses: number[];
  /** Text the answer must contain (names the bound). */
  says?: RegExp;
}

export interface HostileCase {
  req: FuzzRequest;
  expect: Expectation;
}

/** Body limits per entry point kind (the gateway's MAX_BODY_BYTES default, oidc-provider's and registration's). */
const GATEWAY_BODY_LIMIT = 512 * 1024;
const OAUTH_BODY_LIMIT = 56 * 1024;
const REGISTRATION_BODY_LIMIT = 8 * 1024;

interface EntryPoint {
  service: 'auth' | 'gateway';
  method: string;
  path: string;
  headers: Record<string, string>;
  bodyLimit: number;
  /** A plausible body to hide the hostile value in, at `slot`. */
  wrap: (hostile: string) => string;
  /** Statuses that may come before the body is judged (a management bucket already spent). */
  alsoAllowed: number[];
}

function entryPoints(seeds: Seeds): EntryPoint[] {
  const [, editorKey, , botKey, personalKey] = seeds.keys as [string, string, string, string, string];
  const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const rpc = (hostile: string) =>
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"svc_search","arguments":{"query":${hostile}}}}`;
  const gateway = (path: string, key: string, wrap: (h: string) => string, alsoAllowed: number[] = [], method = 'POST'): EntryPoint => ({
    service: 'gateway',
    method,
    path,
    headers: { ...json, 'x-api-key': key },
    bodyLimit: GATEWAY_BODY_LIMIT,
    wrap,
    alsoAllowed,
  });
  const oauth = (path: string, wrap: (h: string) => string): EntryPoint => ({
    service: 'auth',
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json' },
    bodyLimit: OAUTH_BODY_LIMIT,
    wrap,
    alsoAllowed: [],
  });
  const management = MANAGEMENT_ROUTES.filter((r) => r.method !== 'GET' && r.method !== 'DELETE').map((r) =>
    gateway(
      r.path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'project' ? seeds.project : name === 'workspace' ? seeds.team : 'x')),
      personalKey,
      (h) => `{"name":${h}}`,
      // The workspace's management bucket (120 a minute) may be spent by earlier cases.
      [429],
      r.method,
    ),
  );
  return [
    gateway(`/mcp/${seeds.project}`, editorKey, rpc),
    gateway(`/mcp/team/${seeds.team}`, botKey, rpc),
    gateway(`/api/v1/projects/${seeds.project}/tools/svc_search`, editorKey, (h) => `{"query":${h}}`),
    { ...gateway('/api/v1/keys/report-leak', editorKey, (h) => `{"key":${h}}`), headers: json },
    ...management,
    oauth('/api/oauth/token', (h) => `{"grant_type":"refresh_token","client_id":"${seeds.clientId}","refresh_token":${h}}`),
    oauth(
      '/api/oauth/device/token',
      (h) => `{"grant_type":"urn:ietf:params:oauth:grant-type:device_code","client_id":"svc-mcp","device_code":${h}}`,
    ),
    oauth('/api/oauth/device/code', (h) => `{"client_id":"svc-mcp","scope":${h}}`),
    oauth('/api/oauth/introspect', (h) => `{"token":${h}}`),
    oauth('/api/oauth/revoke', (h) => `{"token":${h},"client_id":"svc-mcp"}`),
    oauth('/api/oauth/par', (h) => `{"client_id":"${seeds.clientId}","response_type":"code","redirect_uri":${h}}`),
    {
      ...oauth('/api/oauth/register', (h) => `{"redirect_uris":["http://127.0.0.1:9/cb"],"client_name":${h}}`),
      bodyLimit: REGISTRATION_BODY_LIMIT,
    },
  ];
}

/** How many body-reading entry points the recipes' `point` ranges over. */
export function entryPointCount(seeds: Seeds): number {
  return entryPoints(seeds).length;
}

const OPENERS = ['[', '{"a":'] as const;
type Opener = (typeof OPENERS)[number];
const CLOSERS = { '[': ']', '{"a":': '}' } as const;

/** `depth` levels of arrays and objects, in the order `kinds` gives (cycled), around `0`. */
function nested(depth: number, kinds: readonly Opener[]): string {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    const k = kinds[i % kinds.length]!;
    open += k;
    close = CLOSERS[k] + close;
  }
  return `${open}0${close}`;
}

/**
 * A hostile case as a small recipe (what a failure prints); `build` turns it into the request.
 * `n` is a depth, a count or a multiple of a limit, as `shape` says.
 */
export interface Recipe {
  point: number;
  shape: 'too-deep' | 'deep-enough' | 'many-values' | 'repeated-key' | 'few-repeats' | 'oversized' | 'huge-header';
  n: number;
  kinds: Opener[];
  element: string;
  header: string;
}

const { maxDepth, maxValues } = JSON_BOUNDS;
const EXPECT = {
  'too-deep': { bound: 'depth', statuses: [400], says: /nested more than 64 levels/ },
  'deep-enough': { bound: 'none', statuses: [] },
  'many-values': { bound: 'values', statuses: [400], says: /more than 10000 values/ },
  'repeated-key': { bound: 'values', statuses: [400], says: /more than 10000 values/ },
  'few-repeats': { bound: 'none', statuses: [] },
  oversized: { bound: 'body-size', statuses: [413], says: /(too large|larger than|at most)/ },
  'huge-header': { bound: 'header-size', statuses: [431], says: /headers are larger than the limit/ },
} as const satisfies Record<Recipe['shape'], Expectation>;

/** Recipes spread over every entry point and shape; sizes are fitted to each point's body limit by `build`. */
export function hostileRecipe(seeds: Seeds): fc.Arbitrary<Recipe> {
  return fc.record({
    point: fc.nat({ max: entryPoints(seeds).length - 1 }),
    shape: fc.oneof(
      { weight: 4, arbitrary: fc.constant('too-deep' as const) },
      { weight: 2, arbitrary: fc.constant('deep-enough' as const) },
      { weight: 2, arbitrary: fc.constant('many-values' as const) },
      { weight: 2, arbitrary: fc.constant('repeated-key' as const) },
      { weight: 1, arbitrary: fc.constant('few-repeats' as const) },
      { weight: 1, arbitrary: fc.constant('oversized' as const) },
      { weight: 1, arbitrary: fc.constant('huge-header' as const) },
    ),
    n: fc.double({ min: 0, max: 1, noNaN: true }),
    kinds: fc.array(fc.constantFrom(...OPENERS), { minLength: 1, maxLength: 4 }),
    element: fc.constantFrom('0', '""', '[]', '{}', 'null'),
    header: fc.constantFrom('x-junk', 'cookie', 'authorization'),
  }) as fc.Arbitrary<Recipe>;
}

/** The request a recipe describes, and what its answer must be. */
export function build(seeds: Seeds, r: Recipe): HostileCase {
  const p = entryPoints(seeds)[r.point]!;
  const room = p.bodyLimit - 300;
  const between = (min: number, max: number) => Math.round(min + r.n * Math.max(0, max - min));
  let text = '0';
  let shape = r.shape;
  // A body limit too small to hold more than maxValues values cannot break the count: nest instead.
  if ((shape === 'many-values' || shape === 'repeated-key') && room / 6 <= maxValues) shape = 'too-deep';
  const headers = { ...p.headers };
  switch (shape) {
    case 'too-deep':
      text = nested(between(maxDepth + 1, Math.min(20_000, room / 6)), r.kinds);
      break;
    case 'deep-enough':
      text = nested(between(1, maxDepth - 4), r.kinds);
      break;
    case 'many-values':
      text = `[${Array(between(maxValues + 1, Math.min(maxValues * 4, room / (r.element.length + 1))))
        .fill(r.element)
        .join(',')}]`;
      break;
    case 'repeated-key':
      text = `{${Array(between(maxValues + 1, Math.min(maxValues * 3, room / 6)))
        .fill('"k":1')
        .join(',')}}`;
      break;
    case 'few-repeats':
      text = `{${Array(between(1, 200)).fill('"__proto__":{"admin":true}').join(',')}}`;
      break;
    case 'oversized':
      text = JSON.stringify('x'.repeat(between(p.bodyLimit, p.bodyLimit * 4)));
      break;
    case 'huge-header':
      headers[r.header] = 'a'.repeat(between(HTTP_SERVER_BOUNDS.maxHeaderBytes, HTTP_SERVER_BOUNDS.maxHeaderBytes * 8));
      break;
  }
  const expect: Expectation = EXPECT[shape];
  return {
    req: { service: p.service, method: p.method, path: p.path, headers, body: p.wrap(text) },
    // Registration's 8 KB metadata limit is its own rule (400 invalid_client_metadata).
    expect:
      shape === 'oversized' && p.bodyLimit === REGISTRATION_BODY_LIMIT
        ? { ...expect, statuses: [400] }
        : { ...expect, statuses: expect.statuses.length ? [...expect.statuses, ...p.alsoAllowed] : [] },
  };
}

/** Why an answer does not meet its case's expectation; null when it does. */
export function unmet(c: HostileCase, status: number, body: string): string | null {
  const e = c.expect;
  if (status >= 500) return `status ${status}`;
  if (e.bound === 'none') {
    if (/nested more than|more than \d+ values|body_too_complex/.test(body))
      return `a body inside every bound was refused: ${body.slice(0, 200)}`;
    return null;
  }
  if (!e.statuses.includes(status)) return `status ${status}, expected ${e.statuses.join(' or ')} for the ${e.bound} bound`;
  if (status !== 429 && e.says && !e.says.test(body)) return `the answer does not name the ${e.bound} bound: ${body.slice(0, 200)}`;
  return null;
}
