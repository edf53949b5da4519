/**
 * The names of upstream servers and of their tools as svc lists them (docs/upstream-servers.md
 * "Names"). Every upstream tool is listed as `<upstream>__<tool>`, always, not only where two
 * would collide: a name that changed when another server was registered would break every client
 * that saved it (permissions, allow-lists, prompts). The `__` separator and the character set keep
 * the listed name within what every client accepts (`^[A-Za-z0-9_-]{1,64}$`), inside MCP's own
 * rule for tool names (2025-11-25 "Tool Names": 1 to 128 of `A-Za-z0-9_-.`).
 */
import { UPSTREAM_LIMITS } from './limits.ts';

/** An upstream's name: lower-case letters, digits and single hyphens, starting with a letter. */
const NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

/** A tool name svc forwards: what MCP allows, without `.` so the listed name suits every client. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,128}$/;

const SEPARATOR = '__';
/** The longest listed name: what the strictest clients accept. */
const LISTED_NAME_LENGTH = 64;

/** Why `name` cannot name an upstream, or null. */
export function upstreamNameProblem(name: string): string | null {
  if (name.length === 0 || name.length > UPSTREAM_LIMITS.nameLength) return `name must be 1 to ${UPSTREAM_LIMITS.nameLength} characters`;
  if (name.startsWith('svc') || name.startsWith('rlm')) return 'names starting with "svc" or "rlm" are svc\'s own';
  if (!NAME.test(name)) return 'name may hold lower-case letters, digits and single hyphens, starting with a letter';
  return null;
}

/** The name svc lists an upstream's tool under, or null when the tool's own name cannot be forwarded. */
export function listedName(upstream: string, tool: string): string | null {
  if (!TOOL_NAME.test(tool)) return null;
  const listed = `${upstream}${SEPARATOR}${tool}`;
  return listed.length <= LISTED_NAME_LENGTH ? listed : null;
}
