/**
 * Client governance of a workspace (docs/management.md "Client governance"): which OAuth clients
 * its people may connect to its projects. The vocabulary, the bounds and the decision, apart from
 * the store so that the management contract and the consent page can name them without Redis.
 */

/** How a client not named by a list is treated: admitted, refused, or held for an owner's approval. */
export const CLIENT_POLICY_MODES = ['open', 'allowlist', 'approval'] as const;
export type ClientPolicyMode = (typeof CLIENT_POLICY_MODES)[number];

/**
 * What a rule matches: the client id exactly; the host of a Client ID Metadata Document client's
 * id (`*.example.com` also matches its subdomains); or the client's registered name, compared
 * without regard to case (anyone can register any name: a name admits little, it refuses well).
 */
export const CLIENT_RULE_KINDS = ['client_id', 'host', 'name'] as const;
export type ClientRuleKind = (typeof CLIENT_RULE_KINDS)[number];

export interface ClientRule {
  kind: ClientRuleKind;
  value: string;
}

export interface ClientPolicy {
  mode: ClientPolicyMode;
  allow: ClientRule[];
  deny: ClientRule[];
  /** When it last changed (ms), or null for the default. */
  updatedAt: number | null;
}

/** The bounds of a policy and of the clients waiting for approval. */
export const CLIENT_POLICY_LIMITS = {
  /** Rules in each list. */
  maxRules: 50,
  /** A rule's value. */
  maxValueLength: 200,
  /** Clients a workspace keeps a decision or a wait for (past it the oldest decision is forgotten). */
  maxApprovals: 200,
} as const;

/** A workspace without a policy: every client may connect. */
export const OPEN_POLICY: ClientPolicy = { mode: 'open', allow: [], deny: [], updatedAt: null };

/** A client as governance sees it. */
export interface GovernedClient {
  clientId: string;
  /** Its registered (or metadata document) name, when it has one. */
  name: string | null;
}

/** Where a client waits or was decided, in approval mode. */
export type ClientApprovalState = 'pending' | 'approved' | 'denied';

/** The rule a decision rests on, said on the consent page and in the audit log. */
export type ClientVerdict =
  | { outcome: 'allowed'; rule: string }
  | { outcome: 'refused'; rule: string }
  /** Approval mode, a client no owner has decided on yet: it waits. */
  | { outcome: 'pending'; rule: string };

/** The host of a Client ID Metadata Document client's id (an https URL), in lower case; null for another client. */
function clientHost(clientId: string): string | null {
  if (!clientId.startsWith('https://')) return null;
  const url = URL.parse(clientId);
  return url ? url.host.toLowerCase() : null;
}

const folded = (s: string) => s.normalize('NFKC').trim().toLowerCase();

/** Whether `rule` names `client`. */
export function ruleMatches(rule: ClientRule, client: GovernedClient): boolean {
  switch (rule.kind) {
    case 'client_id':
      return rule.value === client.clientId;
    case 'host': {
      const host = clientHost(client.clientId);
      const want = rule.value.toLowerCase();
      if (host === null) return false;
      return want.startsWith('*.') ? host.endsWith(want.slice(1)) : host === want;
    }
    case 'name':
      return client.name !== null && folded(rule.value) === folded(client.name);
  }
}

/** How a rule is said: `deny host chatgpt.com`. */
const ruleText = (list: 'allow' | 'deny', rule: ClientRule) => `${list} ${rule.kind} ${rule.value}`;

/**
 * The decision for `client` (docs/management.md "Client governance"): the deny list wins; then an
 * open workspace admits; then the allow list admits; then an allowlist workspace refuses, and an
 * approval workspace admits what an owner approved, refuses what one denied, and holds the rest.
 */
export function decideClient(policy: ClientPolicy, client: GovernedClient, approval: ClientApprovalState | null): ClientVerdict {
  const denied = policy.deny.find((r) => ruleMatches(r, client));
  if (denied) return { outcome: 'refused', rule: ruleText('deny', denied) };
  if (policy.mode === 'open') return { outcome: 'allowed', rule: 'open' };
  const allowed = policy.allow.find((r) => ruleMatches(r, client));
  if (allowed) return { outcome: 'allowed', rule: ruleText('allow', allowed) };
  if (policy.mode === 'allowlist') return { outcome: 'refused', rule: 'allowlist' };
  if (approval === 'approved') return { outcome: 'allowed', rule: 'approved' };
  if (approval === 'denied') return { outcome: 'refused', rule: 'approval denied' };
  return { outcome: 'pending', rule: 'approval' };
}

/** Why a rule is refused, or null. */
export function clientRuleProblem(rule: ClientRule): string | null {
  const v = rule.value;
  if (v.length === 0 || v.length > CLIENT_POLICY_LIMITS.maxValueLength || v.trim() !== v)
    return `a rule's value has 1 to ${CLIENT_POLICY_LIMITS.maxValueLength} characters, without spaces around it`;
  if (rule.kind === 'host' && !/^(\*\.)?[a-z0-9.-]+(:\d{1,5})?$/i.test(v))
    return `host ${v} is not a host name (a leading *. matches subdomains)`;
  // eslint-disable-next-line no-control-regex -- refusing control characters is what it is for
  if (rule.kind === 'client_id' && /[\u0000-\u001f\u007f]/u.test(v)) return 'a client id has no control characters';
  return null;
}
