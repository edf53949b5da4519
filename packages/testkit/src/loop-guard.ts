/**
 * Loaded with `node --import` into every integration and e2e test process (scripts/test.sh): a
 * test during which the event loop was held more than LOOP_BUDGET_MS fails, naming how long
 * (docs/security.md "Bounds"). The services under test run in the test's process, so a request
 * that holds their loop shows here. Hooks (starting servers, seeding) are not measured: only
 * the test bodies, where the requests are.
 */
import { afterEach, beforeEach } from 'node:test';
import { monitorLoop } from './loop-monitor.ts';

/** The budget of one turn of the event loop. */
const LOOP_BUDGET_MS = 50;

const monitor = monitorLoop();

beforeEach(() => monitor.reset());
afterEach((t) => {
  const { ms } = monitor.worst();
  if (ms > LOOP_BUDGET_MS)
    throw new Error(`"${t.name}" held the event loop for ${Math.round(ms)} ms at once; the budget is ${LOOP_BUDGET_MS} ms`);
});
