/**
 * Every bound of webhooks in one place (docs/webhooks.md "Bounds"), apart from the store so the
 * management contract can name them without loading Redis.
 */

/** Endpoints one workspace may keep. */
export const WEBHOOK_MAX_ENDPOINTS = 10;
/** The longest endpoint URL. */
export const WEBHOOK_URL_MAX = 2048;
/**
 * The ports a webhook URL may name: the web's two, and the unprivileged range. The well-known ports
 * below 1024 (SMTP 25, ...) are refused, so a webhook is never a cross-protocol POST to another service.
 */
export const WEBHOOK_LOW_PORTS = [80, 443] as const;
export const WEBHOOK_MIN_HIGH_PORT = 1024;

/** True when the URL's port (its scheme's default when it names none) is one a webhook may use. */
export function webhookPortAllowed(url: URL): boolean {
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return (WEBHOOK_LOW_PORTS as readonly number[]).includes(port) || port >= WEBHOOK_MIN_HIGH_PORT;
}
/** The longest description of an endpoint. */
export const WEBHOOK_DESCRIPTION_MAX = 200;
/** Delivery attempts kept per endpoint, newest first (the delivery log). */
export const WEBHOOK_LOG_SIZE = 50;
/** The longest error text kept in a delivery log row. */
export const WEBHOOK_LOG_ERROR_MAX = 200;
/**
 * The waits after a failed attempt, in order (Standard Webhooks' suggested schedule, shortened to
 * fit WEBHOOK_RETRY_WINDOW_MS): the last one repeats until the window is spent.
 */
export const WEBHOOK_RETRY_DELAYS_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000] as const;
/** How long one event is retried before the endpoint is marked failing (and waits for its owner). */
export const WEBHOOK_RETRY_WINDOW_MS = 24 * 3_600_000;
/** After a rotation, the old secret still signs (beside the new one) this long. */
export const WEBHOOK_ROTATION_OVERLAP_MS = 24 * 3_600_000;
/**
 * The most of a receiver's answer read: only its status counts, so a longer body is cut off here and
 * the connection closed, never a failed delivery (docs/webhooks.md "Verdicts").
 */
export const WEBHOOK_MAX_RESPONSE_BYTES = 4 * 1024;
/** Audit entries one endpoint's run reads at most (then the next turn goes on). */
export const WEBHOOK_READ_BATCH = 100;
/** Runs (one endpoint each) one worker has in flight at once: the shared pool of slots (docs/webhooks.md "Fair delivery"). */
export const WEBHOOK_CONCURRENCY = 16;
/** Runs of one workspace's endpoints in flight at once: its share of WEBHOOK_CONCURRENCY, so no fewer than four workspaces share the pool. */
export const WEBHOOK_WORKSPACE_SLOTS = 4;
/**
 * One run's deadline, its share of time: past it the run stops after the send in flight (a run
 * sends at least one event) and its slot goes to the next endpoint of the walk.
 */
export const WEBHOOK_ENDPOINT_RUN_MS = 10_000;
/** Workspaces whose pending work a turn reads side by side (two Redis round trips each, no audit entry read). */
export const WEBHOOK_WALK_BATCH = 50;
/** The most workspaces one turn looks at; the next turn goes on from there, so a turn's reads stay bounded however many workspaces have endpoints. */
export const WEBHOOK_TURN_WORKSPACES = 1_000;
/** How often the holder renews its lease, on its own timer whatever the deliveries are doing (a third of WEBHOOK_LEASE_MS). */
export const WEBHOOK_LEASE_RENEW_MS = 10_000;
/** How often the worker looks for new entries. */
export const WEBHOOK_POLL_MS = 1_000;
/** The worker's lease: one replica delivers; another takes over this long after it stops renewing. */
export const WEBHOOK_LEASE_MS = 30_000;
