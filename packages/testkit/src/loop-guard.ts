/**
 * Loaded with `node --import` into every integration and e2e test process (scripts/test.sh): a
 * test during which the event loop was held more than LOOP_BUDGET_MS fails, naming how long
 * (docs/security.md "Bounds"). The services under test run in the test's process, so a request
 * that holds their loop shows here; garbage collection's pauses are taken out of a hold and
 * noted apart (loop-monitor.ts). Hooks (starting servers, seeding) are not measured: only
 * the test bodies, where the requests are.
 */
import { afterEach, beforeEach } from 'node:test';
import './linger-guard.ts';
import { monitorLoop } from './loop-monitor.ts';

/** The budget of one turn of the event loop. */
const LOOP_BUDGET_MS = 50;
/** A garbage-collection pause longer than this is noted in the test's output. */
const GC_PAUSE_NOTED_MS = 50;

const monitor = monitorLoop();

beforeEach(() => monitor.reset());
afterEach(async (t) => {
  const { ms, gcMs } = await monitor.worst();
  if (gcMs > GC_PAUSE_NOTED_MS) t.diagnostic(`the longest garbage-collection pause was ${Math.round(gcMs)} ms (wall time)`);
  if (ms > LOOP_BUDGET_MS)
    throw new Error(`"${t.name}" held the event loop for ${Math.round(ms)} ms at once; the budget is ${LOOP_BUDGET_MS} ms`);
});
