/** The polling helpers and the test clock: they must be able to fail, and say why. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testClock } from '../src/clock.ts';
import { eventually, GiveUp, waitFor, WaitTimeout } from '../src/wait.ts';

test('waitFor returns the first truthy value', async () => {
  let n = 0;
  const value = await waitFor(() => (++n >= 3 ? `after ${n}` : null), { interval: 1 });
  assert.equal(value, 'after 3');
});

test('waitFor fails on timeout, naming what it waited for and the last value', async () => {
  const err = await waitFor(() => false, { timeout: 60, interval: 5, message: 'the key to be refused' }).then(
    () => assert.fail('resolved'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof WaitTimeout);
  assert.match(err.message, /^waitFor: timed out after 60 ms \(\d+ attempts\) waiting for the key to be refused; last value: false$/);
});

test('waitFor retries a condition that throws and reports its last error', async () => {
  await assert.rejects(
    waitFor(
      () => {
        throw new Error('ECONNREFUSED');
      },
      { timeout: 40, interval: 5, message: 'the server' },
    ),
    (e: Error) => e instanceof WaitTimeout && /waiting for the server; last attempt threw: ECONNREFUSED$/.test(e.message),
  );
  let n = 0;
  assert.equal(
    await waitFor(
      () => {
        if (++n < 3) throw new Error('not yet');
        return n;
      },
      { interval: 1 },
    ),
    3,
  );
});

test('GiveUp ends the wait at once', async () => {
  const start = Date.now();
  await assert.rejects(
    waitFor(
      () => {
        throw new GiveUp('the process exited');
      },
      { timeout: 5_000 },
    ),
    { name: 'GiveUp', message: 'the process exited' },
  );
  assert.ok(Date.now() - start < 1_000);
});

test('an attempt that never settles still ends at the timeout', async () => {
  const start = Date.now();
  await assert.rejects(
    waitFor(() => new Promise(() => {}), { timeout: 50, message: 'a hung request' }),
    /timed out after 50 ms waiting for a hung request \(attempt 1 still running\)/,
  );
  assert.ok(Date.now() - start < 1_000);
});

test('eventually passes once the assertion does, and fails with the assertion message', async () => {
  let n = 0;
  assert.equal(
    await eventually(() => {
      assert.equal(++n, 2);
      return 'ok';
    }),
    'ok',
  );
  await assert.rejects(
    eventually(() => assert.equal('NONE', 'VIEWER'), { timeout: 40, interval: 5, message: 'the role change' }),
    (e: Error) =>
      e instanceof WaitTimeout &&
      /^eventually: timed out after 40 ms \(\d+ attempts\) waiting for the role change/.test(e.message) &&
      e.message.includes("'NONE' !== 'VIEWER'") &&
      e.cause instanceof assert.AssertionError,
  );
});

test('testClock: frozen by default, moved by advance and set; running follows real time', async () => {
  const clock = testClock({ start: 1_000 });
  assert.equal(clock.now(), 1_000);
  clock.advance(500);
  assert.equal(clock.now(), 1_500);
  clock.set(60_000);
  assert.equal(clock.now(), 60_000);
  const running = testClock({ start: 0, frozen: false });
  running.advance(10_000);
  await waitFor(() => running.now() > 10_000, { timeout: 1_000, message: 'the running clock to move' });
  running.set(5);
  assert.ok(running.now() >= 5 && running.now() < 1_000);
});
