/**
 * The MCP client families `svc doctor` speaks for, declared once (docs/cli.md "svc doctor"): how
 * each finds a server's sign-in, in the order it tries. The rows say what each client is known to
 * do (its documentation, its source where it is open: the TypeScript SDK's client/auth) as of the
 * MCP 2025-11-25 and 2026-07-28 authorization rules; a client that changes is a change of its row.
 */

/** Where a client looks for the RFC 9728 protected-resource metadata, in its order. */
export type PrmSource = 'challenge' | 'path' | 'root';
/** How a client gets a client id: a Client ID Metadata Document, RFC 7591 registration, or one a person enters. */
export type Registration = 'cimd' | 'dcr' | 'preregistered';

export interface ClientFamily {
  id: string;
  name: string;
  /**
   * Protected-resource metadata: `challenge` is the 401's `resource_metadata` (RFC 9728 §5.1),
   * `path` the path-inserted well-known URL (§3.1), `root` the well-known URL without the path.
   */
  prm: readonly PrmSource[];
  /** Without any protected-resource metadata, takes the MCP server's origin as its authorization server (MCP 2025-03-26). */
  originFallback: boolean;
  /**
   * A discovery URL answering 5xx (or failing) ends the search instead of moving to the next URL;
   * 4xx always moves on (the TypeScript SDK's discovery does so).
   */
  strictErrors: boolean;
  /** Compares the metadata's `resource` with the URL it called (RFC 9728 §3.3) and refuses another. */
  checksResource: boolean;
  /**
   * What it does with the authorization server metadata's `issuer`: nothing; requires it (RFC 8414
   * §2 makes it REQUIRED: the TypeScript SDK 1.x refuses metadata without it); or compares it with
   * the URL it came from (§3.3), and then RFC 9207 `iss` in the authorization response with it
   * when advertised (SDK 2.x).
   */
  issuer: 'ignored' | 'required' | 'compared';
  /** The client ids it can use, in the order it prefers them. */
  registration: readonly Registration[];
  /** Runs in a browser: every discovery document, the registration and token endpoints and the MCP endpoint must allow it by CORS. */
  browser: boolean;
  /** The MCP revisions it speaks. */
  revisions: readonly string[];
}

const LEGACY = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
const BOTH_ERAS = ['2026-07-28', ...LEGACY] as const;
const EVERY_PRM: readonly PrmSource[] = ['challenge', 'path', 'root'];

export const FAMILIES: readonly ClientFamily[] = [
  {
    id: 'claude',
    name: 'Claude (claude.ai, Desktop, connectors)',
    prm: EVERY_PRM,
    originFallback: false,
    strictErrors: false,
    checksResource: true,
    issuer: 'ignored',
    registration: ['cimd', 'dcr', 'preregistered'],
    browser: false,
    revisions: LEGACY,
  },
  {
    id: 'chatgpt',
    name: 'ChatGPT (apps and connectors)',
    prm: EVERY_PRM,
    originFallback: false,
    strictErrors: false,
    checksResource: true,
    issuer: 'ignored',
    registration: ['cimd', 'dcr'],
    browser: false,
    revisions: LEGACY,
  },
  {
    id: 'vscode',
    name: 'VS Code (GitHub Copilot)',
    prm: EVERY_PRM,
    originFallback: true,
    strictErrors: false,
    checksResource: true,
    issuer: 'ignored',
    registration: ['cimd', 'dcr', 'preregistered'],
    browser: false,
    revisions: LEGACY,
  },
  {
    id: 'cursor',
    name: 'Cursor',
    prm: EVERY_PRM,
    originFallback: true,
    strictErrors: false,
    checksResource: false,
    issuer: 'ignored',
    registration: ['dcr', 'preregistered'],
    browser: false,
    revisions: LEGACY,
  },
  {
    id: 'sdk-v1',
    name: 'TypeScript SDK 1.x (@modelcontextprotocol/sdk; Claude Code)',
    prm: EVERY_PRM,
    originFallback: true,
    strictErrors: true,
    checksResource: true,
    issuer: 'required',
    registration: ['cimd', 'dcr', 'preregistered'],
    browser: false,
    revisions: LEGACY,
  },
  {
    id: 'sdk-v2',
    name: 'TypeScript SDK 2.x (@modelcontextprotocol/client)',
    prm: EVERY_PRM,
    originFallback: true,
    strictErrors: true,
    checksResource: true,
    issuer: 'compared',
    registration: ['cimd', 'dcr', 'preregistered'],
    browser: false,
    revisions: BOTH_ERAS,
  },
  {
    id: 'inspector',
    name: 'MCP Inspector (in the browser, direct connection)',
    prm: EVERY_PRM,
    originFallback: true,
    strictErrors: true,
    checksResource: true,
    issuer: 'required',
    registration: ['dcr', 'preregistered'],
    browser: true,
    revisions: LEGACY,
  },
];
