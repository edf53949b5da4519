/**
 * The interaction policy: oidc-provider's base login and consent prompts, plus two checks of ours.
 * - login: the browser's svc session must name the same account as the provider session, so a
 *   person who signed out (or in as someone else) is never approved as the previous user.
 * - consent: every device approval and every authorization-code request is confirmed by the
 *   person (docs/contract.md "Device flow pages": svc-cli's two confirmations, project selection,
 *   create-svc's workspace approval, and an approval page naming the client and the project).
 *   The base check `rs_scopes_missing` is removed: the request names every MCP level up to the
 *   one the client asked for (default-scope.ts) and the person grants one of them, so a grant
 *   holding fewer scopes than requested is the answer, not a reason to ask again.
 */
import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';

const { Check, base } = interactionPolicy;

export function createInteractionPolicy(deps: { webUserOf: (ctx: KoaContextWithOIDC) => Promise<string | null> }) {
  const policy = base();
  policy.get('login')!.checks.push(
    new Check('svc_session_mismatch', 'the signed-in person changed', async (ctx) => {
      if (ctx.oidc.result?.login) return Check.NO_NEED_TO_PROMPT;
      const webUser = await deps.webUserOf(ctx);
      return webUser !== ctx.oidc.session?.accountId ? Check.REQUEST_PROMPT : Check.NO_NEED_TO_PROMPT;
    }),
  );
  const consent = policy.get('consent')!;
  consent.checks.remove('rs_scopes_missing');
  consent.checks.push(
    new Check('svc_approval_required', 'the person approves each request', (ctx) =>
      ctx.oidc.result?.consent ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT,
    ),
  );
  return policy;
}
