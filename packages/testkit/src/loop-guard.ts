/**
 * Loaded with `node --import` into every integration and e2e test process (scripts/test.sh): a
 * test during which the event loop was held more than LOOP_BUDGET_MS fails, naming how long
 * (docs/security.md "Bounds"). The services under test run in the test's process, so a request
 * that holds their loop shows here; garbage collection's pauses are taken out of a hold and
 * bounded apart (loop-monitor.ts). Hooks (starting servers, seeding) are not measured: only
 * the test bodies, where the requests are.
 */
import { afterEach, beforeEach } from 'node:test';
import { GC_PAUSE_BUDGET_MS, monitorLoop } from './loop-monitor.ts';

/** The budget of one turn of the event loop. */
const LOOP_BUDGET_MS = 50;

const monitor = monitorLoop();

beforeEach(() => monitor.reset());
afterEach(async (t) => {
  const { ms, gcMs } = await monitor.worst();
  if (ms > LOOP_BUDGET_MS)
    throw new Error(`"${t.name}" held the event loop for ${Math.round(ms)} ms at once; the budget is ${LOOP_BUDGET_MS} ms`);
  if (gcMs > GC_PAUSE_BUDGET_MS)
    throw new Error(`"${t.name}" saw a garbage-collection pause of ${Math.round(gcMs)} ms; the budget is ${GC_PAUSE_BUDGET_MS} ms`);
});
