/**
 * Property-based fuzzing of every HTTP entry point of both services (docs/security.md "Fuzzing"):
 * JSON-RPC and REST on the gateway; OAuth endpoints in JSON and form, registration, every page
 * form, headers, paths and cookies on the auth-service. Whatever is sent, the answer is never a
 * 5xx (Redis is up), never carries a stack trace or internal detail, and never hangs.
 * A fixed seed and a few thousand cases here (FUZZ_RUNS, FUZZ_SEED override them); `pnpm fuzz`
 * runs 20,000 (tests/fuzz/run.ts).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { K, WINDOWS } from '@svc/accounts';
import { describe, problemsOf, startFuzzStack, type FuzzStack } from './harness.ts';
import { build, entryPointCount, hostileRecipe, unmet, type Recipe } from './hostile.ts';
import { authRequest, gatewayRequest, type FuzzRequest } from './requests.ts';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 2500);
const SEED = Number(process.env['FUZZ_SEED'] ?? 20_261_123);

let f: FuzzStack;
before(async () => {
  f = await startFuzzStack();
});
after(async () => {
  await f.close();
});

// Every body-reading entry point of both services, each with a body past each JSON bound, answered
// with that bound's own 400 (never a 429 or another status first), and both services still up. A
// refused management request still counts in its workspace's bucket (docs/management.md "REST"),
// so the bucket is emptied before each case rather than allowing a 429.
test('every body-reading entry point: a body nested too deep and one with too many values, each its own 400 naming the bound', async () => {
  const problems: string[] = [];
  const shapes: Recipe['shape'][] = ['too-deep', 'many-values', 'repeated-key'];
  for (let point = 0; point < entryPointCount(f.seeds); point++)
    for (const shape of shapes)
      for (const kinds of [['['], ['{"a":'], ['[', '{"a":']] as Recipe['kinds'][]) {
        const c = build(f.seeds, { point, shape, n: 0.3, kinds, element: '0', header: 'x-junk' });
        await f.stack.redis.client.del(K.rateManagement(f.seeds.team, WINDOWS.minute(Date.now())));
        c.expect = { ...c.expect, statuses: c.expect.statuses.filter((s) => s !== 429) };
        const answer = await f.send(c.req);
        const problem = unmet(c, answer.status, answer.body) ?? problemsOf(answer)[0];
        if (problem) problems.push(`${c.req.method} ${c.req.path} (${shape}, ${kinds.join('')}): ${problem}`);
        if (shape !== 'too-deep') break;
      }
  assert.deepEqual(problems, []);
  for (const url of [f.stack.authUrl, f.stack.baseUrl]) assert.equal((await fetch(`${url}/healthz`)).status, 200, `${url} is up`);
});

const property = (arb: fc.Arbitrary<FuzzRequest>) =>
  fc.asyncProperty(arb, async (req) => {
    const problems = problemsOf(await f.send(req));
    if (problems.length) throw new Error(`${problems.join('; ')}\n  request: ${describe(req)}`);
  });

test(`auth-service: ${RUNS} random requests, no 5xx, no internal detail, no hang`, async () => {
  await fc.assert(property(authRequest(f.seeds)), { numRuns: RUNS, seed: SEED, endOnFailure: true });
});

test(`mcp-gateway: ${RUNS} random requests, no 5xx, no internal detail, no hang`, async () => {
  await fc.assert(property(gatewayRequest(f.seeds)), { numRuns: RUNS, seed: SEED, endOnFailure: true });
});

const HOSTILE_RUNS = Number(process.env['FUZZ_HOSTILE_RUNS'] ?? 400);

test(`both services: ${HOSTILE_RUNS} hostile structures on every body-reading entry point, each bound its own 4xx, both stay up`, async () => {
  await fc.assert(
    fc.asyncProperty(hostileRecipe(f.seeds), async (recipe) => {
      const c = build(f.seeds, recipe);
      const answer = await f.send(c.req);
      const problem = unmet(c, answer.status, answer.body) ?? problemsOf(answer)[0];
      if (problem) throw new Error(`${problem}\n  request: ${describe(c.req).slice(0, 800)}`);
    }),
    { numRuns: HOSTILE_RUNS, seed: SEED, endOnFailure: true },
  );
  for (const url of [f.stack.authUrl, f.stack.baseUrl]) assert.equal((await fetch(`${url}/healthz`)).status, 200, `${url} is up`);
});
