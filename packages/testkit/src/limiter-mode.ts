/**
 * The rate limiter's mode the test servers run (docs/conventions.md "Tests", the shipped limiter
 * mode): the suites run `exact`, the variable's default, unless the run sets `RATE_LIMIT_MODE`;
 * CI runs the client-facing suites again with `leased`, the mode `k8s/base` ships. A test that sets
 * the mode itself keeps it (its own env comes after this).
 */
export function limiterModeEnv(): Record<string, string> {
  const mode = process.env['RATE_LIMIT_MODE'];
  return mode ? { RATE_LIMIT_MODE: mode } : {};
}
