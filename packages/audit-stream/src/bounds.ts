/**
 * The audit exporter's bounds, each stated with its value in docs/audit.md "Streaming". Tests may
 * shorten the timings (ExporterTiming); the CLI always uses these.
 */

/** Entries read by one XRANGE and sent in one request (one batch) per workspace. */
export const AUDIT_STREAM_BATCH = 500;
/** Bytes of one OTLP request body or of one batch of JSON lines: a batch is cut before the entry that would pass it. */
export const AUDIT_STREAM_MAX_BODY = 1_048_576;
/** Bytes of a receiver's response read (its partial-success message); the rest is dropped. */
export const AUDIT_STREAM_MAX_RESPONSE = 65_536;
/** One request to the receiver, from connect to the last byte of its answer. */
export const AUDIT_STREAM_TIMEOUT_MS = 10_000;
/** Retry backoff: the first wait after a failed batch, doubled on each failure up to the most. */
export const AUDIT_STREAM_BACKOFF_MIN_MS = 1_000;
export const AUDIT_STREAM_BACKOFF_MAX_MS = 30_000;
/** A pass starts no new batch after this long; the next pass goes on from the workspace it stopped at. */
export const AUDIT_STREAM_PASS_MS = 20_000;
/** The wait after a pass that found nothing new. */
export const AUDIT_STREAM_IDLE_MS = 1_000;
/** How often the audit logs are listed again (SCAN) to find new workspaces. */
export const AUDIT_STREAM_DISCOVER_MS = 30_000;
/** The exporter name's lease: renewed every third of it; another replica takes over this long after a holder died. */
export const AUDIT_STREAM_LEASE_MS = 10_000;
/** An exporter name: 1 to 64 of a-z, 0-9, `-`, `_`. */
export const AUDIT_STREAM_NAME = /^[a-z0-9_-]{1,64}$/;
