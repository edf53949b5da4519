/**
 * The structured denial of every authorization refusal the gateway answers (docs/errors.md
 * "Structured denials"), derived from the refusal itself as the challenge is (challenge.ts): a
 * gate's remediation is the one its declaration states (@svc/policy GATE_REMEDIATION), a scope
 * refusal names the scope, a step-up names the dashboard page that does the same after a second
 * factor. Refusals the transport challenge already describes (401s) carry none.
 */
import { denialMeta, type RemediationHint, type SvcError } from '@svc/errors';
import { GATE_REMEDIATION, isKeyLevel, type Gate } from '@svc/policy';

const isGate = (v: unknown): v is Gate => typeof v === 'string' && Object.hasOwn(GATE_REMEDIATION, v);

/** The `_meta` of the denial for `err`, or null when `err` is not an authorization refusal. */
export function denial(authUrl: string, err: SvcError): Record<string, unknown> | null {
  if (err.code === 'insufficient_scope')
    return denialMeta('available', [{ type: 'authorization_remediation', scope: String(err.data['scope']) }]);
  if (err.code === 'step_up_required') {
    const page = typeof err.data['page'] === 'string' ? err.data['page'] : '/dashboard';
    return denialMeta('available', [{ type: 'url', url: new URL(page, authUrl).href }]);
  }
  if (err.code !== 'access_denied') return null;
  const gate = err.data['gate'];
  // docs/approvals.md: a call held for an approval is remedied by waiting for it and polling.
  if (gate === 'approval' && typeof err.data['approval_id'] === 'string') {
    const taskId = err.data['approval_id'];
    return denialMeta('available', [
      { type: 'task', taskId },
      { type: 'tool', tool: 'svc_approval_status', arguments: { approval_id: taskId } },
    ]);
  }
  // A management refusal names no gate: what would open it is the project's admins' to say.
  if (!isGate(gate)) return denialMeta('undisclosed');
  const needed = err.data['needed'];
  const hints: RemediationHint[] =
    gate === 'level' && isKeyLevel(needed) ? [{ type: 'tool', tool: 'svc_request_access', arguments: { requested_level: needed } }] : [];
  return denialMeta(GATE_REMEDIATION[gate], hints);
}
