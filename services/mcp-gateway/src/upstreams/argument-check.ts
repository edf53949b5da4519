/**
 * What svc checks of a forwarded call's arguments against the upstream's own `inputSchema`
 * (docs/upstream-servers.md "A forwarded call"): the top level only, at a cost that follows the
 * arguments and never the schema. The required properties are present, each given property has
 * the JSON type its `type` names, and none is given that `additionalProperties: false` leaves out.
 * The rest of the schema (nested schemas, patterns, combinators, references) is the server's to
 * check, as MCP asks every server to ("Tools", security considerations: servers validate all tool
 * inputs).
 *
 * Why not compile the whole schema, as svc does its own tools': the schema is written by whoever
 * runs the upstream, a tenant of the gateway. Compiling 14 KB of nested schema held the event loop
 * 120 ms with ajv, a hundred such tools a server and ten servers a project; a pattern can backtrack
 * for as long as its author likes; and combinators over references grow with the data as fast as
 * their author wants. Each of those is every other tenant's wait (docs/security.md "Shared pools,
 * per-tenant shares").
 */
import type { ArgumentCheck } from '../tools/registry.ts';

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
/** Properties and required names read from one schema: a descriptor is at most 16 KiB, this is a second fence. */
const MOST_NAMES = 1_000;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The JSON types a property's `type` allows (none: any). */
function typesOf(property: unknown): string[] | null {
  if (!isRecord(property)) return null;
  const t = property['type'];
  const named = typeof t === 'string' ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : [];
  const types = named.filter((x) => JSON_TYPES.has(x));
  return types.length > 0 ? types : null;
}

function fits(value: unknown, types: readonly string[]): boolean {
  for (const t of types) {
    if (t === 'null' ? value === null : t === 'array' ? Array.isArray(value) : t === 'object' ? isRecord(value) : false) return true;
    if (t === 'integer' && Number.isInteger(value)) return true;
    if (t === typeof value && t !== 'object') return true;
  }
  return false;
}

/** The top-level check of an upstream tool's `inputSchema`, read once when the tool set is built. */
export function topLevelCheck(schema: unknown): ArgumentCheck {
  const root = isRecord(schema) ? schema : {};
  const properties = isRecord(root['properties']) ? root['properties'] : {};
  const types = new Map<string, string[]>();
  for (const name of Object.keys(properties).slice(0, MOST_NAMES)) {
    const allowed = typesOf(properties[name]);
    if (allowed) types.set(name, allowed);
  }
  const required = Array.isArray(root['required'])
    ? root['required'].filter((n): n is string => typeof n === 'string').slice(0, MOST_NAMES)
    : [];
  const closed = root['additionalProperties'] === false;
  return (args) => {
    for (const name of required) if (!Object.hasOwn(args, name)) return `missing required argument "${name.slice(0, 100)}"`;
    for (const name of Object.keys(args)) {
      if (closed && !Object.hasOwn(properties, name)) return `unknown argument "${name.slice(0, 100)}"`;
      const allowed = types.get(name);
      if (allowed && !fits(args[name], allowed)) return `${name.slice(0, 100)} must be ${allowed.join(' or ')}`;
    }
    return null;
  };
}
