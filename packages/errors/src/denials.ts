/**
 * The structured authorization denial (docs/errors.md "Structured denials"), in the shape of the
 * MCP draft SEP-2643 "Structured Authorization Denials" as its pull request stood in September
 * 2026: an envelope under `_meta["io.modelcontextprotocol/authorization"]` that classifies the
 * refusal, says whether the caller can remedy it, and how. It is additive: the refusal's error,
 * status and `WWW-Authenticate` challenge stay what they are, and a client that does not know the
 * envelope ignores it.
 */

/** The extension's identifier, listed in server/discover's `capabilities.extensions`. */
export const DENIALS_EXTENSION = 'io.modelcontextprotocol/structured-authorization-denials';

/** The `_meta` key the envelope is carried under. */
export const DENIAL_META_KEY = 'io.modelcontextprotocol/authorization';

/**
 * `available`: the hints say what to do; `unavailable`: the refusal is final for this caller;
 * `undisclosed`: svc does not say (a refusal whose remedy would itself reveal something).
 */
export type Remediation = 'available' | 'unavailable' | 'undisclosed';

/**
 * What the caller can do. `url`: a person completes something on a page (the draft's type);
 * `authorization_remediation`: a new token with this scope (the draft's type; the
 * `WWW-Authenticate` challenge says the same); `tool`: call this tool of the same server with these
 * arguments (svc's own type until the draft defines one; clients ignore types they do not know);
 * `task`: the call waits on something a person decides, followed by this id (docs/approvals.md).
 */
export type RemediationHint =
  | { type: 'url'; url: string }
  | { type: 'authorization_remediation'; scope: string }
  | { type: 'tool'; tool: string; arguments: Record<string, unknown> }
  | { type: 'task'; taskId: string };

export interface DenialEnvelope {
  reason: 'insufficient_authorization';
  remediation: Remediation;
  remediationHints?: RemediationHint[];
}

/** The `_meta` object that carries a denial. */
export function denialMeta(remediation: Remediation, hints: RemediationHint[] = []): { [DENIAL_META_KEY]: DenialEnvelope } {
  const envelope: DenialEnvelope = { reason: 'insufficient_authorization', remediation };
  if (remediation === 'available' && hints.length > 0) envelope.remediationHints = hints;
  return { [DENIAL_META_KEY]: envelope };
}
