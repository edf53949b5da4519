/**
 * The actor of a management operation as its audit entry names it (docs/audit.md "Who and through
 * what"): the principal by id and label, and the agent the door gave (the audit log looks a
 * reference up as it writes the entry), else the one each kind of actor has without saying (a
 * person: the dashboard; a project key: itself; the operator: svc-admin).
 */
import { AUDIT_AGENTS, keyAgent, type AuditAgent, type AuditAgentRef, type AuditDelegation, type AuditPrincipal } from '@svc/accounts';
import type { Actor } from './types.ts';

type Parties = { principal: AuditPrincipal; agent: AuditAgent | AuditAgentRef; chain: AuditDelegation[] };

/** Who acted, through what, and for whom, for `note` (context.ts) and a new access request's entry. */
export function auditPartiesOf(actor: Actor): Parties {
  return { ...principalAndAgent(actor), chain: (actor.chain ?? []).map((sub) => ({ sub })) };
}

function principalAndAgent(actor: Actor): Omit<Parties, 'chain'> {
  switch (actor.kind) {
    case 'person':
      return { principal: { type: 'user', id: actor.userId, label: actor.label }, agent: actor.agent ?? AUDIT_AGENTS.web };
    case 'project_key': {
      const agent = actor.agent ?? keyAgent({ prefix: actor.label.replace(/^key:/, ''), name: '' });
      return { principal: { type: 'key', id: actor.keyId, label: actor.label }, agent };
    }
    case 'operator':
      return { principal: { type: 'operator', id: '', label: actor.label }, agent: actor.agent ?? AUDIT_AGENTS.operator };
  }
}
