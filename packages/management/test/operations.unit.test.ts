/**
 * The convention the management layer's rules rely on (docs/management.md "The contract"): every
 * operation of the contract is one method of the layer named by its id, and its arguments after the
 * actor are the operation's path parameters in the order its path names them. The compiler checks
 * the names and the arity (management-type.ts); this checks, for every operation and for every
 * internal call that performs one (VARIANTS), that the implementation uses those arguments as
 * what they are called: the project or workspace it looks up is the one the rules were given.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Accounts, Redis } from '@svc/accounts';
import type { SsoSettingsService } from '@svc/sso';
import { pathParamNames } from '../src/contract/define.ts';
import { MANAGEMENT_OPERATIONS, type OperationId } from '../src/contract/operations.ts';
import { managementCalls } from '../src/management.ts';
import { OPERATIONS_ARE_THE_CONTRACT, VARIANTS } from '../src/management-type.ts';
import { withRules } from '../src/rules.ts';
import type { Actor } from '../src/types.ts';

/** Thrown by the stand-in stores once the implementation has named what it acts on. */
const STOP = new Error('stop: the implementation named its project or workspace');

/** What the implementation looked up: the project (getProject), the workspace (its owner, or its SSO settings). */
let looked: { project?: string; workspace?: string } = {};

const accounts = {
  workspaces: {
    getProject: async (slug: string) => {
      looked.project = slug;
      throw STOP;
    },
    get: async (workspace: string) => {
      looked.workspace = workspace;
      throw STOP;
    },
  },
} as unknown as Accounts;
/** The SSO settings service: every call names the workspace second (after who acts). */
const sso = new Proxy(
  {},
  {
    get: () => async (_who: unknown, workspace: string) => {
      looked.workspace = workspace;
      throw STOP;
    },
  },
) as SsoSettingsService;
const present = {} as never;

/** The inputs whose checks come before the lookup, valid; any other input may be empty. */
const INPUTS: Partial<Record<OperationId, object>> = {
  requestAccess: { level: 'VIEWER', reason: 'to read the docs' },
  createProject: { name: 'A project' },
  putMember: { email: 'someone@example.com', role: 'VIEWER' },
};

test('every operation has its method, named by its id, taking its path parameters first (the compile-time check)', () => {
  assert.equal(OPERATIONS_ARE_THE_CONTRACT, true);
});

test("every operation's implementation acts on the project or workspace the rules were given, by the path's order", async () => {
  /** The path parameters each check of the rules was given, for the call under test. */
  const checked: Record<string, string>[] = [];
  const layer = withRules(
    managementCalls(accounts, { redis: present as Redis, sso, scim: present, webhooks: present, upstreams: present }),
    {
      check: async (_op, _actor, params) => {
        checked.push(params);
      },
    },
  );
  const actor: Actor = { kind: 'person', userId: 'u1', label: 'someone@example.com', source: 'test', requestId: 'test' };
  const calls: [string, OperationId][] = [
    ...(Object.keys(MANAGEMENT_OPERATIONS) as OperationId[]).map((id) => [id, id] as [string, OperationId]),
    ...Object.entries(VARIANTS),
  ];
  for (const [method, op] of calls) {
    const names = pathParamNames(MANAGEMENT_OPERATIONS[op].path);
    looked = {};
    checked.length = 0;
    const run = (layer as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[method]!;
    const err: unknown = await run(actor, ...names.map((name) => `the ${name}`), INPUTS[op] ?? {}).then(
      () => null,
      (e: unknown) => e,
    );
    const params = Object.fromEntries(names.map((name) => [name, `the ${name}`]));
    assert.deepEqual(checked, [params], `${method}: checked once, with the path's parameters`);
    for (const scope of ['project', 'workspace'] as const) {
      if (!names.includes(scope)) continue;
      assert.equal(err, STOP, `${method}: it looks up its ${scope} first (${String(err)})`);
      assert.equal(looked[scope], params[scope], `${method}: the ${scope} it acts on is the rules'`);
    }
  }
});
