/**
 * MCP protocol revisions this gateway speaks, decided per request (docs/mcp-revisions.md):
 * - modern: 2026-07-28, stateless; every request carries its version in params._meta.
 * - legacy: 2025-11-25, 2025-06-18 and 2025-03-26, with the initialize handshake.
 */
import { DENIALS_EXTENSION } from '@svc/errors';

const MODERN_VERSIONS = ['2026-07-28'] as const;
const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
/** Every version, newest first: what server/discover and UnsupportedProtocolVersion list. */
export const SUPPORTED_PROTOCOL_VERSIONS = [...MODERN_VERSIONS, ...LEGACY_VERSIONS] as const;
export const LATEST_LEGACY_VERSION = LEGACY_VERSIONS[0];

export type Era = 'modern' | 'legacy';

export const isModernVersion = (v: string): boolean => (MODERN_VERSIONS as readonly string[]).includes(v);
export const isLegacyVersion = (v: string): boolean => (LEGACY_VERSIONS as readonly string[]).includes(v);

/** MCP 2026-07-28 "Request Metadata": the reserved `_meta` keys. */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const;

/**
 * The MCP authorization extensions svc implements, by extension identifier, each with no settings
 * (an empty object: MCP 2026-07-28 `ServerCapabilities.extensions`). Both extensions recommend
 * listing them in server/discover (docs/mcp-revisions.md "The 2026-07-28 rules"): OAuth client
 * credentials is the service accounts' grant, enterprise-managed authorization the ID-JAG grant
 * (docs/auth-service.md "Client credentials", "Enterprise-managed authorization").
 */
export const AUTHORIZATION_EXTENSIONS = {
  'io.modelcontextprotocol/oauth-client-credentials': {},
  'io.modelcontextprotocol/enterprise-managed-authorization': {},
  // Every authorization refusal carries its structured denial (docs/errors.md "Structured denials").
  [DENIALS_EXTENSION]: {},
} as const;

/**
 * The MCP Tasks extension (SEP-2663, the 2026-07-28 revision's tasks): a call held for an admin's
 * approval is answered as a task to a client that declares it, and followed with tasks/get
 * (docs/approvals.md "As an MCP task").
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export const SERVER_INFO = { name: 'svc', title: 'svc project knowledge' } as const;
export const INSTRUCTIONS = 'Call svc_help to see which tools you can call here and what keeps the others out.';
