/**
 * The row an upstream tool starts with (docs/upstream-servers.md "Policy rows"). The level follows
 * the tool's annotations, read as MCP defines their defaults (2025-11-25 "Tool Annotations":
 * `readOnlyHint` false and `destructiveHint` true unless said): a tool that says it only reads is
 * VIEWER; one that says it writes but destroys nothing is EDITOR; any other, including a tool that
 * says nothing, may destroy and is ADMIN. Annotations are the upstream's claims, not facts (the
 * spec says so too), so a tool that appears after registration starts off, and a change of schema
 * or annotations waits for an admin: an upstream cannot widen who calls what by relabelling.
 */
import { SURFACES } from '@svc/policy';
import type { KeyLevel } from '@svc/policy';
import type { ToolDescriptor, UpstreamToolPolicy } from './types.ts';

function defaultLevel(annotations: Record<string, unknown> | undefined): KeyLevel {
  if (annotations?.['readOnlyHint'] === true) return 'VIEWER';
  if (annotations?.['destructiveHint'] === false) return 'EDITOR';
  return 'ADMIN';
}

/** The starting row: on for a tool found when the upstream is registered, off for one found later. */
export function defaultPolicy(descriptor: ToolDescriptor, atRegistration: boolean): UpstreamToolPolicy {
  return {
    level: defaultLevel(descriptor.annotations),
    plan: 'FREE',
    surfaces: [...SURFACES],
    agents: false,
    countsAsQuery: true,
    enabled: atRegistration,
  };
}
