/**
 * The management API's contract on a running gateway (docs/management.md "The contract"): a body
 * property of the wrong type is a 400 naming it, never read as its default, for every operation,
 * every property of its body and every JSON type the property's schema does not take.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { K, WINDOWS } from '@svc/accounts';
import { MANAGEMENT_OPERATIONS, type OperationDeclaration } from '@svc/management/contract';
import { send, type Answered } from './management-client.ts';
import { seed, startFixture, type GatewayFixture, type Seeded } from './support.ts';

let f: GatewayFixture;
let owner: Seeded;
let personal: string;
const log: Answered[] = [];

before(async () => {
  f = await startFixture();
  owner = await seed(f.accounts, { plan: 'TEAM' });
  personal = (await f.accounts.keys.createUserKey({ userId: owner.userId })).key;
});
after(() => f.close());

interface Property {
  type?: string | readonly string[];
  enum?: readonly unknown[];
}

/** A value of each JSON type, by the name JSON Schema gives it. */
const SAMPLES: Record<string, unknown> = { number: 5, string: 'x', boolean: true, null: null, array: [], object: {} };

/** A value the property takes. */
function validValue(p: Property): unknown {
  if (p.enum) return p.enum[0];
  const types = ([] as string[]).concat(p.type ?? 'string');
  return types.includes('string') ? 'x' : SAMPLES[types[0]!];
}

/** The JSON types the property does not take (an integer type takes numbers here: 5 is whole). */
function wrongTypes(p: Property): string[] {
  const types = ([] as string[]).concat(p.type ?? []);
  const takes = (t: string) => types.includes(t) || (t === 'number' && types.includes('integer'));
  return Object.keys(SAMPLES).filter((t) => !takes(t));
}

const pathOf = (op: OperationDeclaration) =>
  op.path.replace(/\{(\w+)\}/g, (_m, n: string) => ({ project: owner.project, workspace: owner.workspace })[n] ?? 'some-id');

test('{"name":"x","level":5} is a 400 naming level, and no key is made', async () => {
  const before = (await f.accounts.keys.listForProject(owner.project)).length;
  const r = await send(f.url, log, 'POST', `/api/v1/projects/${owner.project}/keys`, personal, { name: 'x', level: 5 });
  assert.equal(r.status, 400, JSON.stringify(r.body));
  const error = (r.body as { error: { code: string; field: string; message: string } }).error;
  assert.deepEqual([error.code, error.field], ['invalid_params', 'level']);
  assert.match(error.message, /"level" must be a string/);
  assert.equal((await f.accounts.keys.listForProject(owner.project)).length, before, 'no key was created');
});

test('every operation x every body property x every JSON type it does not take: a 400 naming the property', async () => {
  const keysBefore = (await f.accounts.keys.listForProject(owner.project)).length;
  let cases = 0;
  for (const [id, op] of Object.entries(MANAGEMENT_OPERATIONS) as [string, OperationDeclaration][]) {
    const properties = ((op.body as { properties?: Record<string, Property> } | undefined)?.properties ?? {}) as Record<string, Property>;
    const valid = Object.fromEntries(Object.entries(properties).map(([name, p]) => [name, validValue(p)]));
    for (const [name, property] of Object.entries(properties)) {
      for (const type of wrongTypes(property)) {
        cases++;
        const body = { ...valid, [name]: SAMPLES[type] };
        const r = await send(f.url, log, op.method, pathOf(op), personal, body);
        const error = (r.body as { error?: { code?: string; field?: string; message?: string } } | null)?.error;
        const what = `${id}: ${name} as ${type} answered ${r.status} ${JSON.stringify(r.body)}`;
        assert.equal(r.status, 400, what);
        assert.equal(error?.code, 'invalid_params', what);
        assert.equal(error?.field, name, what);
        assert.ok(error?.message?.includes(`"${name}"`), what);
      }
    }
  }
  assert.ok(cases >= 50, `${cases} cases: every body property of the contract is tried`);
  assert.equal((await f.accounts.keys.listForProject(owner.project)).length, keysBefore, 'no key was made');
  assert.equal((await f.accounts.bots.listForWorkspace(owner.workspace)).length, 0, 'no service account was made');
  assert.deepEqual(await f.accounts.workspaces.projectsOf(owner.workspace), [owner.project], 'no project was made');
});

test('a body that is not an object, or without a required property, is a 400 for every operation that takes one', async () => {
  // The test above sends more requests of this workspace than one minute's management bucket
  // holds (120): this one starts a fresh count, as the next minute would.
  const minute = WINDOWS.minute(Date.now());
  await f.redis.client.del(K.rateManagement(owner.workspace, minute), K.rateManagement(owner.workspace, minute - 1));
  for (const op of Object.values(MANAGEMENT_OPERATIONS) as OperationDeclaration[]) {
    if (!op.body) continue;
    for (const body of [[], 'x', 5]) {
      const r = await send(f.url, log, op.method, pathOf(op), personal, body);
      assert.equal(r.status, 400, `${op.method} ${op.path} with ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
    }
    const [first] = (op.body as { required?: readonly string[] }).required ?? [];
    if (first === undefined) continue;
    const r = await send(f.url, log, op.method, pathOf(op), personal, {});
    const error = (r.body as { error?: { field?: string } }).error;
    assert.deepEqual([r.status, error?.field], [400, first], `${op.method} ${op.path} without ${first}`);
  }
});
