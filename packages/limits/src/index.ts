/**
 * @svc/limits: the one limiter (docs/operations.md "Rate limits"). Every named bucket's numbers
 * (`BUCKETS`), the scripts that check and count them atomically, and the one Lua runner every
 * package uses (`runScript`), and the lease a background job holds (`holdLease`).
 */
export * from './buckets.ts';
export { countInWindow } from './count.ts';
export { holdLease, releaseLease } from './lease.ts';
export { runScript, script } from './lua.ts';
export { pace } from './pace.ts';
export { createLimiter, type Limiter } from './window.ts';
export { LEASE, LEASE_SIZING, Lease, type LeaseSizing } from './reserve.ts';
