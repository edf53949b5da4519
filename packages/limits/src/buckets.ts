/**
 * Every named rate-limit bucket's numbers, in this one table (docs/operations.md "Rate limits"
 * repeats it with the reasons). Each bucket is keyed by what it protects: a workspace, an account,
 * a source address (the one TRUST_PROXY resolves, docs/operations.md "Proxies"), an email address,
 * a host, a device code. The gateway's per-minute and monthly buckets depend on the plan: their
 * numbers are the plan table's (`@svc/policy` plans.ts), checked by the gateway's batched script
 * (services/mcp-gateway/src/ratelimit/rate-limiter.ts).
 */

/** At most `limit` attempts per window of `windowSeconds`. */
export interface WindowRule {
  limit: number;
  windowSeconds: number;
}

/**
 * Exponential backoff of one subject's failures from every source together: the `freeFailures`-th
 * failure makes the next attempt wait `firstWaitSeconds`, each further one twice as long as the
 * one before, up to `maxWaitSeconds`; the count is forgotten `memorySeconds` after the last
 * failure, and at once on a success or a password reset.
 */
export interface BackoffRule {
  freeFailures: number;
  firstWaitSeconds: number;
  maxWaitSeconds: number;
  memorySeconds: number;
}

/** RFC 8628 §3.5 pacing: a poll sooner than the interval after the last one adds `stepSeconds`. */
export interface PaceRule {
  stepSeconds: number;
}

/**
 * A share of the payer's plan per-minute limit (`requestsPerMinute`), for the buckets that divide
 * a workspace's minute among those who spend it (docs/operations.md "Limits for agents").
 */
export interface ShareRule {
  share: number;
}

/** A share bucket's limit: its share of the plan's per-minute limit, at least one request. */
export function shareLimit(perMinute: number, share: number): number {
  return Math.max(1, Math.floor(perMinute * share));
}

/** At most `concurrent` calls in progress at once, per credential and replica. */
export interface ConcurrencyRule {
  concurrent: number;
}

/**
 * codeEntryPerIp: 10 unknown codes per 30 minutes (the code's lifetime); docs/security.md
 * "User-code guessing" computes why this keeps the chance of hitting a pending code below 1e-7.
 * signInAccountBackoff: after 10 failures 1 s, 2 s, 4 s ... up to 15 min between attempts, so
 * guessing from any number of addresses gets about 100 tries a day, and the owner is slowed, never
 * shut out for longer than 15 min (and a password reset ends the wait).
 */
export const BUCKETS = {
  /** Management requests of a workspace per clock minute, API and dashboard together, every plan (docs/management.md "REST"). */
  management: { limit: 120, windowSeconds: 60 },
  /** Failed sign-ins per source address, whatever the account (password spraying). */
  signInPerIp: { limit: 100, windowSeconds: 900 },
  /** Failed sign-ins per account and source together (one address guessing one account). */
  signInPerAccount: { limit: 5, windowSeconds: 900 },
  /** Failed sign-ins per account from every source (guessing spread over many addresses). */
  signInAccountBackoff: { freeFailures: 10, firstWaitSeconds: 1, maxWaitSeconds: 900, memorySeconds: 86_400 },
  /** Wrong second-factor codes (TOTP or recovery) per account, from every source (docs/auth-service.md "Second factor"). */
  secondFactorPerAccount: { limit: 5, windowSeconds: 900 },
  /** Sign-up attempts per source address. */
  signUpPerIp: { limit: 20, windowSeconds: 3600 },
  /** Sign-up attempts per email address, from every source (each may send a confirmation mail). */
  signUpPerEmail: { limit: 3, windowSeconds: 3600 },
  /** Password-reset requests per source address. */
  resetPerIp: { limit: 20, windowSeconds: 3600 },
  /** Password-reset requests per email address, from every source (each may send a mail). */
  resetPerEmail: { limit: 3, windowSeconds: 3600 },
  /** Unknown user codes per source, at POST /device and GET /device?code= alike. */
  codeEntryPerIp: { limit: 10, windowSeconds: 1800 },
  /** Dynamic client registrations per source address (each stores a client record). */
  registrationPerIp: { limit: 30, windowSeconds: 3600 },
  /** Client ID Metadata Document fetches per source address. */
  cimdFetchPerSource: { limit: 20, windowSeconds: 600 },
  /** Client ID Metadata Document fetches per client_id host, from every source. */
  cimdFetchPerHost: { limit: 60, windowSeconds: 600 },
  /** SAML Responses one workspace's ACS checks, from every source: its share of the signature work (docs/auth-service.md "SAML"). */
  samlAcsPerWorkspace: { limit: 120, windowSeconds: 60 },
  /** Device-grant polls per device code: RFC 8628 §3.5, each slow_down adds 5 seconds. */
  devicePoll: { stepSeconds: 5 },
  /** Gateway requests of one person (an OAuth user), every client and request together. */
  agentPerson: { share: 1 },
  /** Gateway requests of one person through one OAuth client: one agent's reconnect storm spends at most half. */
  agentClient: { share: 0.5 },
  /** tools/call of one caller (person or key), each spending its tool's `cost` (`@svc/policy` tools.ts). */
  agentTools: { share: 1 },
  /** tools/call in progress at once per credential, in each gateway replica. */
  toolCallsInFlight: { concurrent: 16 },
} as const satisfies Record<string, WindowRule | BackoffRule | PaceRule | ShareRule | ConcurrencyRule>;

export type BucketName = keyof typeof BUCKETS;
