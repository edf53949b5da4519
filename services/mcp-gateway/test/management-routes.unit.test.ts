/**
 * The management API's routes, derived from the contract (docs/management.md "REST", "Adding an
 * operation"): one route per declared operation, at its method and path; an operation without a
 * wire adapter calls the layer's method named by its id with the actor, the path parameters in
 * the order the path names them and the input (the body for POST and PATCH, the query for GET and
 * DELETE), and answers what the method returns with the first declared status.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Actor, Management } from '@svc/management';
import { MANAGEMENT_OPERATIONS, pathParamNames, type OperationId } from '@svc/management/contract';
import type { Exchange } from '../src/pipeline/exchange.ts';
import { EVERY_OPERATION_ANSWERS_ITS_DECLARATION, MANAGEMENT_ROUTES, WIRE_ADAPTERS } from '../src/rest/management-routes.ts';

test('every declared operation has one route, at its method and path', () => {
  assert.deepEqual(
    MANAGEMENT_ROUTES.map((r) => r.id),
    Object.keys(MANAGEMENT_OPERATIONS),
  );
  for (const r of MANAGEMENT_ROUTES) {
    const op = MANAGEMENT_OPERATIONS[r.id];
    assert.deepEqual([r.method, r.path, r.name], [op.method, op.path, op.summary], r.id);
  }
});

test('every operation without a wire adapter answers its declared answer (the compile-time check)', () => {
  assert.equal(EVERY_OPERATION_ANSWERS_ITS_DECLARATION, true);
});

test("a route without a wire adapter calls the layer's method of its id, its path parameters in order, and answers its first status", async () => {
  const actor: Actor = { kind: 'person', userId: 'u1', label: 'someone@example.com', source: 'test', requestId: 'test' };
  const calls: { method: string; args: unknown[] }[] = [];
  const answer = { answered: true };
  const layer = new Proxy(
    {},
    {
      get:
        (_t, method: string) =>
        async (...args: unknown[]) => {
          calls.push({ method, args });
          return answer;
        },
    },
  ) as Management;
  const unadapted = MANAGEMENT_ROUTES.filter((r) => !Object.hasOwn(WIRE_ADAPTERS, r.id));
  assert.ok(unadapted.length >= 20, 'the simple operations answer as the layer does');
  for (const r of unadapted) {
    calls.length = 0;
    const names = pathParamNames(r.path);
    const params = Object.fromEntries(names.map((name) => [name, `the ${name}`]));
    const body = { from: 'the body' };
    const query = new URLSearchParams('days=7&days=8&x=1');
    const outcome = await r.operation(layer, actor, { params, query, body }, {} as Exchange);
    const input = r.method === 'POST' || r.method === 'PATCH' ? body : { days: '7', x: '1' };
    assert.deepEqual(calls, [{ method: r.id, args: [actor, ...names.map((name) => `the ${name}`), input] }], r.id);
    assert.deepEqual(outcome, { status: MANAGEMENT_OPERATIONS[r.id as OperationId].statuses[0], body: answer }, r.id);
  }
});
