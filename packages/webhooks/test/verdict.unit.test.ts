/** The verdict on a receiver's answer (docs/webhooks.md "Verdicts"): any 2xx delivers, 410 disables, the rest retries. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { verdictOf } from '../src/verdict.ts';

test('2xx delivers, 410 is gone, every other status and no answer retry', () => {
  for (const status of [200, 201, 202, 204, 299]) assert.equal(verdictOf(status), 'delivered', String(status));
  assert.equal(verdictOf(410), 'gone');
  for (const status of [null, 199, 300, 301, 400, 404, 409, 429, 500, 502, 503]) assert.equal(verdictOf(status), 'retry', String(status));
});
