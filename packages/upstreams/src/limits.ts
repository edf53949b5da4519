/**
 * Every bound on a project's upstream MCP servers, declared once (docs/upstream-servers.md
 * "Bounds"): what the management API refuses past, what discovery keeps, and what a forwarded
 * call may take. The management contract names them in its schemas, so the API, the CLI and the
 * docs say the same numbers.
 */
export const UPSTREAM_LIMITS = {
  /** Upstream servers a project may register. */
  perProject: 10,
  /** An upstream's name: the prefix of its tools' names (names.ts). */
  nameLength: 24,
  urlLength: 2_048,
  /** The static credential an upstream may be given (a header's value), sealed at rest. */
  credentialLength: 4_096,
  /** Tools kept of one upstream; past it the rest are left out and the upstream flagged. */
  toolsPerUpstream: 100,
  /** One tool's description, schemas and annotations as JSON; a larger tool is left out and flagged. */
  descriptorBytes: 16 * 1024,
  /**
   * All of one upstream's tools as JSON (the sum of their descriptors): the tools past it, in the
   * server's order, are left out and flagged. Ten servers a project bound what one project's tool
   * set costs to read, hold and list (docs/security.md "Shared pools, per-tenant shares"): at 100
   * tools of 16 KiB a server, a project's tools/list was 16 MB, 35-95 ms of one turn to serialize.
   */
  bytesPerUpstream: 256 * 1024,
  /**
   * Rows svc keeps of one upstream, `missing` ones included (docs/upstream-servers.md "Policy
   * rows"): past it, those missing longest are deleted. Before, no row was ever deleted: a server
   * listing 100 new names at each refresh grew its project's hash by 100 rows a refresh (10,100
   * rows, 26 MiB, after 100 refreshes; reading them took 60-77 ms of CPU in one turn).
   */
  rowsPerUpstream: 300,
  /**
   * The descriptors of all one upstream's rows as JSON, a change waiting for an admin (`pending`)
   * and `missing` rows included. The tools the server lists now come first, in its order: one past
   * it is left out and the upstream flagged, as past bytesPerUpstream; the `missing` rows take what
   * is left, those missing longest deleted first. Twice bytesPerUpstream: a server's tools and a
   * change of each.
   */
  rowBytesPerUpstream: 512 * 1024,
  /** Pages of tools/list read at discovery (MCP pagination). */
  listPages: 20,
  /** What one call of a tool may spend of its caller's tool budget (docs/operations.md "Limits for agents"). */
  toolCost: { min: 1, max: 1_000 },
  /** A forwarded call's time, ms: each upstream has its own, within these. */
  timeoutMs: { default: 10_000, min: 1_000, max: 60_000 },
  /** Discovery's time, ms, whatever the upstream's call timeout. */
  discoveryTimeoutMs: 10_000,
  /** An upstream's answer, JSON or an event stream, read at most this far. */
  answerBytes: 4 * 1024 * 1024,
  /**
   * The JSON of one answer, all its events together (@svc/bounds jsonValues): what parsing it
   * costs follows its values, not its bytes. 4 MiB of `[{},{},...]` took 160-310 ms of one turn to
   * parse and 4 MiB of nesting 320-420 ms; 100,000 values parse in about 10 ms.
   */
  answerJson: { maxDepth: 64, maxValues: 100_000 },
  /** Messages of an event stream read before the answer; past it the call fails as a flood. */
  streamEvents: 1_000,
  /** A forwarded token's lifetime, seconds (RFC 9068 access token, docs/upstream-servers.md). */
  tokenSeconds: 60,
  /**
   * The forwarded tokens' signing keys (docs/upstream-servers.md "Key rotation"). A rotated-in key is
   * published at once and signs `publishLeadSeconds` later: past the JWK Set's max-age (300 s, so
   * no HTTP cache still holds the set without it), a verifier's cool-down between two fetches of
   * the set (30 s by default in @svc/upstream-auth) and 30 s for clocks. The key it replaces stays
   * published `retireAfterSeconds` after that: its last token's lifetime (tokenSeconds) and 60 s
   * for clocks and the verifiers' tolerance. Every gateway reads the keys again when its copy is
   * `reloadSeconds` old, well within the lead, so every gateway switches at the same moment.
   */
  signingKeys: { publishLeadSeconds: 360, retireAfterSeconds: 120, reloadSeconds: 30 },
  /** An upstream's tools are read again when older than this (and on notifications/tools/list_changed). */
  refreshEveryMs: 5 * 60_000,
  /** One gateway refreshes an upstream at a time: the others leave it alone this long. */
  leaseMs: 30_000,
  /**
   * A gateway keeps one session per upstream (client.ts): for the URL and credential it was opened
   * with, at most `kept` of them (as many as the tool sets' projects have upstreams) and
   * `perWorkspace` of one workspace's upstreams (docs/security.md "Shared pools, per-tenant
   * shares"), the least recently used going first (a workspace at its share, its own); a legacy upstream's session id is at most `idLength` characters
   * (a longer one is refused as `invalid`). Before, a session was kept for every URL and credential
   * ever used, updated or removed, and its id whatever the upstream said (12,000 characters were
   * kept, and sent back on every request).
   */
  sessions: { kept: 10_000, perWorkspace: 1_000, idLength: 1_024 },
  /** Per upstream and gateway: this many failed calls in a row open its breaker for `openMs`. */
  breaker: { failures: 5, openMs: 30_000 },
  /**
   * Breaker states a gateway keeps (failing upstreams only): 10,000 in all, 1,000 of one workspace
   * (a hundred projects' ten servers); past either, the oldest go (docs/security.md "Shared pools,
   * per-tenant shares").
   */
  breakerStates: { entries: 10_000, perTenant: 1_000 },
  /**
   * A gateway keeps this many projects' tool sets in memory, and at most `bytes` of their upstream
   * tools (their rows as stored), the least recently used going first; each for at most `ttlMs`.
   */
  toolSets: { projects: 1_000, bytes: 64 * 1024 * 1024, ttlMs: 30_000 },
} as const;
