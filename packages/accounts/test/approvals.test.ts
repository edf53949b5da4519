/**
 * Approvals are single-use and bound (docs/approvals.md "One run, of that call, by that caller"),
 * as properties over arbitrary arguments and callers against a real Redis: an approval is of one
 * call hash, so it applies to no other arguments and no other caller; the one claim that lets the
 * call run succeeds once, however many race for it; a decision is made once; and after the
 * deadline nothing moves but to `expired`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import {
  AccountError,
  APPROVAL_TIMING,
  approvalCallHash,
  connectRedis,
  createAccounts,
  type Accounts,
  type ApprovalCaller,
  type Redis,
} from '@svc/accounts';
import { startRedis, testClock, type RedisFixture } from '@svc/testkit';

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;
const clock = testClock();
let projects = 0;

before(async () => {
  redis = await startRedis();
  client = connectRedis(redis.url);
  accounts = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4, now: clock.now });
});
after(async () => {
  client.disconnect();
  await redis.stop();
});

const ORIGIN = { source: '192.0.2.1', requestId: 'test' };
const json = fc.jsonValue({ maxDepth: 2 });
const args = fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), json, { maxKeys: 4 });
/** Callers drawn from few people and clients: the same person through another client is another caller. */
const caller = fc.record({
  type: fc.constantFrom('user' as const, 'key' as const, 'bot' as const),
  id: fc.constantFrom('ada', 'bob', 'k1'),
  clientId: fc.constantFrom('client-a', 'client-b', 'svc-key:k1'),
});
type Who = { type: ApprovalCaller['type']; id: string; clientId: string };
const labelled = (c: Who): ApprovalCaller => ({ ...c, label: c.id });
const same = (x: Who, y: Who) => x.type === y.type && x.id === y.id && x.clientId === y.clientId;
/** Different as JSON: the member order aside (and -0 as JSON writes it, 0). */
const differ = (a: unknown, b: unknown) => !isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)));

/** A held call on a project of its own (each run starts apart from the bound of the others). */
async function hold(callArgs: Record<string, unknown>, who: ApprovalCaller) {
  const project = `p${(projects += 1)}`;
  return accounts.approvals.create({ project, workspace: 'acme', tool: 'notes__write_note', arguments: callArgs, caller: who }, ORIGIN);
}

test('the hash is of the canonical call: key order aside, any other argument, tool or caller is another hash', async () => {
  await fc.assert(
    // Async, each run after a turn of the loop: 200 runs at once would hold it (docs/conventions.md "Tests").
    fc.asyncProperty(args, args, caller, caller, async (a, b, x, y) => {
      await yieldToLoop();
      const base = { project: 'web', tool: 't', arguments: a, caller: x };
      const reordered = Object.fromEntries(Object.entries(a).reverse());
      assert.equal(approvalCallHash({ ...base, arguments: reordered }), approvalCallHash(base));
      if (differ(a, b)) assert.notEqual(approvalCallHash({ ...base, arguments: b }), approvalCallHash(base));
      if (!same(x, y)) assert.notEqual(approvalCallHash({ ...base, caller: y }), approvalCallHash(base));
      assert.notEqual(approvalCallHash({ ...base, tool: 'u' }), approvalCallHash(base));
    }),
    { numRuns: 200 },
  );
});

test('an approval of other arguments or another caller is refused, and the call stays pending', async () => {
  await fc.assert(
    fc.asyncProperty(args, args, caller, caller, async (a, b, x, y) => {
      fc.pre(differ(a, b) || !same(x, y));
      const held = await hold(a, labelled(x));
      const otherHash = approvalCallHash({ project: held.project, tool: held.tool, arguments: b, caller: y });
      assert.equal(await accounts.approvals.decide(held.project, held.id, { approve: true, callHash: otherHash, by: 'admin' }), 'mismatch');
      assert.equal((await accounts.approvals.get(held.project, held.id))?.status, 'pending');
    }),
    { numRuns: 40 },
  );
});

test('an approved call is claimed once, by its own caller only; no approval is given or used twice', async () => {
  await fc.assert(
    fc.asyncProperty(args, caller, caller, async (a, x, y) => {
      fc.pre(!same(x, y));
      const held = await hold(a, labelled(x));
      const decide = () => accounts.approvals.decide(held.project, held.id, { approve: true, callHash: held.callHash, by: 'admin' });
      assert.equal(await decide(), 'ok');
      assert.equal(await decide(), 'approved', 'an approval is not given twice');
      assert.equal(await accounts.approvals.claim(held.project, held.id, y, held.callHash), 'other_caller');
      const forged = approvalCallHash({ ...held, arguments: { ...a, extra: true } });
      assert.equal(await accounts.approvals.claim(held.project, held.id, x, forged), 'mismatch');
      assert.equal(await accounts.approvals.claim(held.project, held.id, x, held.callHash), 'claimed');
      assert.equal(await accounts.approvals.claim(held.project, held.id, x, held.callHash), 'running', 'a claim is not replayed');
      assert.equal(await accounts.approvals.finish(held.project, held.id, { content: [] }), true);
      assert.equal(await accounts.approvals.finish(held.project, held.id, { content: [] }), false);
      assert.equal(await accounts.approvals.claim(held.project, held.id, x, held.callHash), 'done');
      assert.equal(await decide(), 'done');
    }),
    { numRuns: 40 },
  );
});

test('of many concurrent decisions one decides, and of many concurrent claims one runs', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.boolean(), { minLength: 2, maxLength: 12 }), fc.integer({ min: 2, max: 16 }), async (votes, claimers) => {
      const who = labelled({ type: 'key', id: 'racer', clientId: 'svc-key:racer' });
      const held = await hold({ title: 'race' }, who);
      const decisions = await Promise.all(
        votes.map((approve) => accounts.approvals.decide(held.project, held.id, { approve, callHash: held.callHash, by: 'admin' })),
      );
      assert.equal(decisions.filter((d) => d === 'ok').length, 1);
      const approved = votes[decisions.indexOf('ok')]!;
      const claims = await Promise.all(
        Array.from({ length: claimers }, () => accounts.approvals.claim(held.project, held.id, who, held.callHash)),
      );
      assert.equal(claims.filter((c) => c === 'claimed').length, approved ? 1 : 0);
    }),
    { numRuns: 30 },
  );
});

test('past its deadline a call is expired: never approved, never run', async () => {
  await fc.assert(
    fc.asyncProperty(args, fc.boolean(), fc.integer({ min: 0, max: 3 * APPROVAL_TIMING.decideWithinMs }), async (a, approveFirst, late) => {
      const who = labelled({ type: 'user', id: 'late', clientId: 'client-a' });
      const held = await hold(a, who);
      const decide = () => accounts.approvals.decide(held.project, held.id, { approve: true, callHash: held.callHash, by: 'admin' });
      if (approveFirst) assert.equal(await decide(), 'ok');
      clock.advance((approveFirst ? APPROVAL_TIMING.collectWithinMs : APPROVAL_TIMING.decideWithinMs) + late);
      const moves: string[] = approveFirst ? [await accounts.approvals.claim(held.project, held.id, who, held.callHash)] : [await decide()];
      moves.push(await accounts.approvals.claim(held.project, held.id, who, held.callHash));
      assert.deepEqual(moves, ['expired_now', 'expired']);
      assert.equal((await accounts.approvals.get(held.project, held.id))?.status, 'expired');
    }),
    { numRuns: 30 },
  );
});

test('a call withdrawn by its caller is final: only its caller withdraws it, and it is never approved or run after', async () => {
  await fc.assert(
    fc.asyncProperty(args, caller, caller, fc.boolean(), async (a, x, y, approveFirst) => {
      fc.pre(!same(x, y));
      const held = await hold(a, labelled(x));
      const decide = () => accounts.approvals.decide(held.project, held.id, { approve: true, callHash: held.callHash, by: 'admin' });
      if (approveFirst) assert.equal(await decide(), 'ok');
      assert.equal(await accounts.approvals.cancel(held.project, held.id, y), 'other_caller');
      assert.equal(await accounts.approvals.cancel(held.project, held.id, x), 'cancelled');
      assert.equal(await accounts.approvals.cancel(held.project, held.id, x), 'cancelled', 'the status found');
      assert.equal(await decide(), 'cancelled');
      assert.equal(await accounts.approvals.claim(held.project, held.id, x, held.callHash), 'cancelled');
    }),
    { numRuns: 30 },
  );
});

test("a call is held only with arguments an admin can be shown (APPROVAL_TIMING.argumentBytes); a project's list stays within its bound", async () => {
  const sized = (bytes: number) => ({ text: 'x'.repeat(Math.max(0, bytes - '{"text":""}'.length)) });
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: APPROVAL_TIMING.argumentBytes * 4 }), async (bytes) => {
      await yieldToLoop();
      const outcome = await hold(sized(bytes), labelled({ type: 'key', id: 'k1', clientId: 'svc-key:k1' })).then(
        () => 'held',
        (err: unknown) => (err instanceof AccountError ? err.code : String(err)),
      );
      assert.equal(outcome, Math.max(bytes, '{"text":""}'.length) <= APPROVAL_TIMING.argumentBytes ? 'held' : 'invalid', `${bytes} bytes`);
    }),
    { numRuns: 40 },
  );
  // A project full of held calls at the bound: its list is at most maxOpen calls of the bound and their fields.
  const project = `p${(projects += 1)}`;
  for (let i = 0; i < APPROVAL_TIMING.maxOpen; i++)
    await accounts.approvals.create(
      {
        project,
        workspace: 'acme',
        tool: 'notes__write_note',
        arguments: sized(APPROVAL_TIMING.argumentBytes),
        caller: labelled({ type: 'user', id: 'ada', clientId: `c${i}` }),
      },
      ORIGIN,
    );
  const listed = await accounts.approvals.list(project);
  assert.equal(listed.length, APPROVAL_TIMING.maxOpen);
  assert.ok(JSON.stringify(listed).length <= APPROVAL_TIMING.maxOpen * (APPROVAL_TIMING.argumentBytes + 2_048));
});
