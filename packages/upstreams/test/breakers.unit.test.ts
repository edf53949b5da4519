/**
 * The upstreams' breakers (packages/upstreams/src/breaker.ts, docs/upstream-servers.md "Failures"):
 * a breaker opens after UPSTREAM_LIMITS.breaker.failures failures in a row and lets one trial
 * through once `openMs` has passed; the states are kept per workspace within its share, so a
 * workspace with any number of failing upstreams never drops another workspace's open breaker.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Breakers } from '../src/breaker.ts';
import { UPSTREAM_LIMITS } from '../src/limits.ts';

const { failures, openMs } = UPSTREAM_LIMITS.breaker;

function open(breakers: Breakers, workspace: string, key: string): void {
  for (let i = 0; i < failures; i++) breakers.record(workspace, key, false);
}

test('a breaker opens after its failures, lets one trial through after openMs, and a success closes it', () => {
  let now = 0;
  const breakers = new Breakers(() => now);
  open(breakers, 'acme', 'alpha\nsearch');
  assert.equal(breakers.allow('acme', 'alpha\nsearch'), false);
  assert.equal(breakers.allow('globex', 'alpha\nsearch'), true, "another workspace's upstream of the same name is its own");
  now += openMs;
  assert.equal(breakers.allow('acme', 'alpha\nsearch'), true, 'half open: one trial');
  assert.equal(breakers.allow('acme', 'alpha\nsearch'), false, 'only one');
  breakers.record('acme', 'alpha\nsearch', true);
  assert.equal(breakers.allow('acme', 'alpha\nsearch'), true);
  assert.equal(breakers.held(), 0, 'a success drops the state');
});

test("a workspace with any number of failing upstreams keeps to its share and leaves another's breakers open", () => {
  const bounds = { entries: 20, perTenant: 5 };
  const breakers = new Breakers(() => 0, bounds);
  open(breakers, 'victim', 'p\nslow');
  for (let i = 0; i < 1_000; i++) breakers.record('churner', `p${i}\nbad`, false);
  assert.equal(breakers.held('churner'), bounds.perTenant);
  assert.equal(breakers.allow('victim', 'p\nslow'), false, "the victim's breaker is still open");
  assert.deepEqual(UPSTREAM_LIMITS.breakerStates, { entries: 10_000, perTenant: 1_000 });
});
