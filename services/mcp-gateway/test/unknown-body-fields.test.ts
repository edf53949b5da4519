/**
 * Every management operation with a body refuses a field it does not declare (docs/management.md
 * "The contract": a wrong input is a 400 naming the field, never ignored), proven from the
 * declarations themselves, so an operation is covered the day it is declared: over REST, with a
 * personal key of an owner without a second factor, a valid body (sampleOf its schema) with one
 * unknown field added is refused 400 `invalid_params` naming that field (the body is checked
 * before the operation looks at its path, so the path's ids need not exist).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MANAGEMENT_OPERATIONS, type ObjectSchema, type OperationDeclaration } from '@svc/management/contract';
import { sampleOf } from '@svc/testkit';
import { seed, startFixture, type GatewayFixture } from './support.ts';

let f: GatewayFixture;
before(async () => {
  f = await startFixture();
});
after(() => f.close());

/** Every operation with a body: its id, declaration and body schema. */
const WITH_BODY = (Object.entries(MANAGEMENT_OPERATIONS) as [string, OperationDeclaration][]).flatMap(
  ([id, op]): [string, OperationDeclaration, ObjectSchema][] => (op.body ? [[id, op, op.body]] : []),
);
const UNKNOWN = 'not_a_field_of_any_operation';

test('every operation with a body refuses an unknown field: 400 naming it', async () => {
  assert.ok(WITH_BODY.length >= 20, 'the declarations have bodies');
  const owner = await seed(f.accounts, { plan: 'TEAM' });
  const key = (await f.accounts.keys.createUserKey({ userId: owner.userId })).key;
  const params: Record<string, string> = {
    project: owner.project,
    workspace: owner.workspace,
    id: 'none',
    user: 'none',
    domain: 'example.com',
  };
  for (const [id, op, schema] of WITH_BODY) {
    const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? 'none'));
    const body = { ...(sampleOf(schema) as Record<string, unknown>), [UNKNOWN]: 'x' };
    const res = await fetch(f.url + path, {
      method: op.method,
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as { error?: { code?: string; message?: string; field?: string } };
    assert.equal(res.status, 400, `${id}: ${JSON.stringify(answer)}`);
    assert.equal(answer.error?.code, 'invalid_params', id);
    assert.equal(answer.error?.message, `Invalid params: "${UNKNOWN}" is not a known field`, id);
    assert.equal(answer.error?.field, UNKNOWN, id);
  }
});
