/**
 * The webhooks' Redis keys (docs/redis-schema.md "Webhooks"). A workspace's keys share its hash tag
 * with its audit log (`svc:audit:{<workspace>}`), so one script may touch them together.
 */
export const WK = {
  /** Hash: endpoint id -> the endpoint as JSON (its secrets sealed). */
  endpoints: (ws: string) => `svc:webhooks:{${ws}}`,
  /** Hash: cursor, attempts, firstFailureAt, nextAt, failing, lastError, test. */
  state: (ws: string, id: string) => `svc:webhooks:{${ws}}:state:${id}`,
  /** List: the last WEBHOOK_LOG_SIZE attempts as JSON, newest first. */
  log: (ws: string, id: string) => `svc:webhooks:{${ws}}:log:${id}`,
  /** Set: workspaces that have at least one endpoint (what the worker walks). */
  workspaces: () => 'svc:webhooks:workspaces',
  /** String: the worker replica holding the delivery lease. */
  lease: () => 'svc:webhooks:lease',
};
