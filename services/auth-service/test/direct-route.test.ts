/**
 * The token endpoint's direct route (docs/auth-service.md "The token endpoint's direct route")
 * runs exactly the steps the app's router would run for the same request, in the same order, and
 * hands a failure to the error step the router would call. Both are read from the router's own
 * layers, so a step mounted ahead of the token route is on the direct route the day it is mounted,
 * or this fails. Then, through the running service: a grant taken by the direct route meets the
 * front steps (counted, its headers set), and a request the direct route does not take (any other
 * spelling of the path, fast-check drawing them) gets the same answer through the app. Last, each
 * way a step can fail (thrown, rejected, passed on, after answering), with the error step failing
 * or not: the direct route answers as the router does.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { connectRedis, createAccounts, waitReady, type Redis } from '@svc/accounts';
import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { startRedis, type RedisFixture } from '@svc/testkit';
import { createApp } from '../src/app.ts';
import { withDirectRoute } from '../src/http/direct-route.ts';
import { ROUTES } from '../src/http/routes.ts';
import { loadSigningKeys } from '../src/provider/signing-keys.ts';
import { startAuth } from './support.ts';

interface RouterLayer {
  handle: RequestHandler & { length: number };
  route?: { _handlesMethod(method: string): boolean; stack: { method?: string; handle: RequestHandler }[] };
  match(path: string): boolean;
}

/**
 * The handlers Express's router runs for `method path` until the first route that takes it, in
 * order, and the error step it would call when one of them fails (the first after that route).
 */
function routerSteps(app: Express, method: string, path: string): { steps: RequestHandler[]; errors: unknown } {
  const stack = (app as unknown as { router: { stack: RouterLayer[] } }).router.stack;
  const steps: RequestHandler[] = [];
  let routed = false;
  for (const layer of stack) {
    if (!layer.match(path)) continue;
    // An error step (four parameters) runs only once a step failed.
    const isErrorStep = !layer.route && layer.handle.length === 4;
    if (routed) {
      if (isErrorStep) return { steps, errors: layer.handle };
      continue;
    }
    if (!layer.route) {
      if (!isErrorStep) steps.push(layer.handle);
      continue;
    }
    if (!layer.route._handlesMethod(method)) continue;
    for (const inner of layer.route.stack) if (!inner.method || inner.method === method.toLowerCase()) steps.push(inner.handle);
    // The route that takes the request and ends it: its last step is the provider.
    routed = layer.route.stack.length > 1;
  }
  return { steps, errors: null };
}

let redisServer: RedisFixture;
let redis: Redis;
before(async () => {
  redisServer = await startRedis();
  redis = connectRedis(redisServer.url, { failFast: true, name: 'direct-route-test' });
  await waitReady(redis);
});
after(async () => {
  redis.disconnect();
  await redisServer.stop();
});

for (const tracing of [false, true])
  test(`the token endpoint's direct route runs the router's steps for it, in its order, and its error step (tracing ${tracing ? 'on' : 'off'})`, async () => {
    const url = 'http://127.0.0.1:3998';
    const config = loadConfig({
      NODE_ENV: 'test',
      REDIS_URL: redisServer.url,
      AUTH_URL: url,
      BASE_URL: 'http://127.0.0.1:3999',
      LOG_LEVEL: 'error',
    });
    const logger = createLogger({ service: 'direct-route-test', level: 'error', silent: true });
    const { trace } = await import('@opentelemetry/api');
    const built = createApp({
      config,
      redis,
      accounts: createAccounts(redis, { pepper: config.keyPepper, bcryptCost: 4 }),
      logger,
      jwks: await loadSigningKeys(redis),
      ...(tracing ? { tracing: { tracer: trace.getTracer('direct-route-test') } as never } : {}),
    });
    const { steps: expected, errors } = routerSteps(built.app, 'POST', ROUTES.token.path);
    assert.equal(built.tokenRoute.errors, errors, 'a failing step goes to the error step the router would call');
    const names = (steps: readonly RequestHandler[]) => steps.map((s) => s.name || '(anonymous)');
    assert.ok(expected.length >= 8, `the router's steps for the token endpoint: ${names(expected).join(', ')}`);
    assert.deepEqual(names(built.tokenRoute.steps), names(expected));
    built.tokenRoute.steps.forEach((step, i) => assert.equal(step, expected[i], `step ${i + 1} (${step.name}) is the app's own`));
  });

test('a grant through the direct route meets the front steps; other spellings of the path reach the same answer', async (t) => {
  const f = await startAuth();
  t.after(() => f.close());
  const requests = async () => {
    const text = await (await fetch(`${f.url}${ROUTES.metrics.path}`)).text();
    const line = text.split('\n').find((l) => l.startsWith('svc_auth_http_requests_total{method="POST",status="400"}'));
    return Number(line?.split(' ')[1] ?? 0);
  };
  const before = await requests();
  // The first two go by the direct route (a query string may follow the path), the others through the app.
  const paths = [ROUTES.token.path, `${ROUTES.token.path}?x=1`, ROUTES.token.path.toUpperCase(), `${ROUTES.token.path}/`];
  const answers: string[] = [];
  for (const path of paths) {
    const res = await fetch(`${f.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=nope&client_id=svc-mcp',
    });
    const body = (await res.json()) as { error?: string; error_description?: string };
    assert.equal(res.headers.get('x-powered-by'), null, path);
    answers.push(`${res.status} ${res.headers.get('cache-control')} ${body.error} ${body.error_description}`);
  }
  assert.match(answers[0]!, /^400 no-store unsupported_grant_type /);
  assert.deepEqual(new Set(answers).size, 1, answers.join('\n'));
  assert.equal((await requests()) - before, paths.length, 'every request counted once by the front steps');

  // Any spelling of the path a client may send, with any query: the same answer either way.
  const canonical = answers[0]!;
  const spelling = fc.record({
    upper: fc.array(fc.boolean(), { minLength: ROUTES.token.path.length, maxLength: ROUTES.token.path.length }),
    slash: fc.boolean(),
    query: fc.option(fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }), { nil: undefined }),
  });
  await fc.assert(
    fc.asyncProperty(spelling, async ({ upper, slash, query }) => {
      const path = [...ROUTES.token.path].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('') + (slash ? '/' : '');
      const search = query === undefined ? '' : `?${new URLSearchParams(query).toString()}`;
      const res = await fetch(`${f.url}${path}${search}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=nope&client_id=svc-mcp',
      });
      const body = (await res.json()) as { error?: string; error_description?: string };
      assert.equal(
        `${res.status} ${res.headers.get('cache-control')} ${body.error} ${body.error_description}`,
        canonical,
        `${path}${search}`,
      );
    }),
    { numRuns: 40 },
  );
});

// Each way a step can fail, and an error step that fails itself: the direct route answers as the
// app's router does for the same request.
const FAILURES: Record<string, RequestHandler> = {
  'a step throws': () => {
    throw new Error('thrown');
  },
  'a step rejects': () => Promise.reject(new Error('rejected')),
  'a step rejects with nothing': () => Promise.reject(undefined as unknown as Error),
  'a step passes an error on': (_req, _res, next) => next(new Error('passed on')),
  'a step answers, then fails': (_req, res) => {
    res.status(201).send('sent');
    throw new Error('after the answer');
  },
};
for (const [name, failing] of Object.entries(FAILURES))
  for (const errorStepFails of [false, true])
    test(`the direct route fails as the router does: ${name}${errorStepFails ? ', and the error step fails too' : ''}`, async (t) => {
      const app = express();
      const front: RequestHandler = (_req, res, next) => {
        res.set('x-front', 'seen');
        next();
      };
      app.use(front);
      app.post('/t', failing);
      const errors: ErrorRequestHandler = (err: unknown, _req, res, _next) => {
        if (errorStepFails) throw new Error('the error step failed');
        if (!res.headersSent) res.status(418).send(`caught: ${err instanceof Error ? err.message : String(err)}`);
      };
      app.use(errors);
      const server = createServer(
        withDirectRoute(app, {
          method: 'POST',
          path: '/t',
          steps: [front, failing],
          errors,
          unanswered: (res) => void res.status(500).end(),
        }),
      );
      await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
      t.after(() => server.close());
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const answer = async (path: string) => {
        const res = await fetch(`${base}${path}`, { method: 'POST' }).catch(() => null);
        return res ? `${res.status} ${res.headers.get('x-front')} ${await res.text().catch(() => '(cut)')}` : '(no answer)';
      };
      // '/t' is taken by the direct route, '/T' (the router matches case-insensitively) by the app.
      const [direct, routed] = [await answer('/t'), await answer('/T')];
      assert.notEqual(direct, '(no answer)');
      if (!errorStepFails) return assert.equal(direct, routed);
      // Where Express's final handler prints the error and its stack (outside production), the
      // direct route gives its own last answer, with the same status.
      assert.equal(direct.split(' ').slice(0, 2).join(' '), routed.split(' ').slice(0, 2).join(' '));
      assert.doesNotMatch(direct, / at /);
    });
