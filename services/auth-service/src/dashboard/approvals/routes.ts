/**
 * Project > Approvals routes (docs/approvals.md): the calls held, one call reviewed, and a decision
 * on one: approved of its hash, approved with a passkey whose challenge is made of the call, or denied.
 */
import { randomBytes } from 'node:crypto';
import type { Request, Response, Router } from 'express';
import { approvalChallenge, type Approval, type PasskeyApproval } from '@svc/accounts';
import { ManagementError, StepUpRequired, type Actor } from '@svc/management';
import { STEP_UP_MINUTES } from '@svc/management/contract';
import { markFactorUsed } from '../../factors/step-up.ts';
import { html, render } from '../../ui/html.ts';
import { FRAMED_FACTOR_CSP } from '../frame.ts';
import { formOf } from '../form.ts';
import { back, param, type Kit } from '../kit.ts';
import { APPROVAL_FORMS } from './forms.ts';
import { approvalReviewPage } from './review-view.ts';
import { approvalsPage } from './view.ts';

/** What a passkey's challenge for `a` is made of, with the nonce that makes it this page's. */
const boundOf = (a: Approval, nonce: string) => JSON.stringify({ id: a.id, callHash: a.callHash, nonce });

export function approvalsRoutes(router: Router, kit: Kit): void {
  const { deps, now, page$, frame } = kit;
  const base = (slug: string) => `/dashboard/projects/${encodeURIComponent(slug)}/approvals`;
  const heldCall = async (actor: Actor, slug: string, id: string) => {
    const found = (await deps.management.listApprovals(actor, slug)).find((a) => a.id === id);
    if (!found) throw new ManagementError(404, 'There is no such approval in this project.');
    return found;
  };

  /** The review page; a pending call is offered to the person's passkey with a challenge made of it. */
  async function review(req: Request, res: Response, actor: Actor, error?: string) {
    const slug = param(req, 'slug');
    const f = await frame(req, res, actor, 'approvals', { project: slug });
    const approval = await heldCall(actor, slug, param(req, 'id'));
    const user = actor.kind === 'person' ? await deps.accounts.users.get(actor.userId) : null;
    let passkey;
    if (approval.status === 'pending' && user && deps.passkeys) {
      const nonce = randomBytes(16).toString('base64url');
      passkey = await deps.passkeys.askFor(
        req,
        res,
        user,
        'approval',
        `${base(slug)}/${encodeURIComponent(approval.id)}/approve-passkey`,
        html`<input type="hidden" name="nonce" value="${nonce}">`,
        {
          challenge: new Uint8Array(approvalChallenge(approval.id, approval.callHash, nonce)),
          bound: boundOf(approval, nonce),
          label: 'Approve with a passkey',
        },
      );
    }
    // The passkey form's script comes from our origin, as on the factor pages.
    res.set('Content-Security-Policy', FRAMED_FACTOR_CSP);
    render(
      res,
      approvalReviewPage(f, { approval, now: now(), passkey, ...(error ? { error } : {}) }),
      error ? { refusal: 'invalid_form' } : {},
    );
  }

  router.get(
    '/projects/:slug/approvals',
    page$(async (req, res, actor) => {
      const f = await frame(req, res, actor, 'approvals', { project: param(req, 'slug') });
      render(res, approvalsPage(f, { approvals: await deps.management.listApprovals(actor, param(req, 'slug')), now: now() }));
    }),
  );
  router.get('/projects/:slug/approvals/:id', page$(review));
  for (const decision of ['approve', 'deny'] as const) {
    router.post(
      APPROVAL_FORMS[decision].path,
      page$(async (req, res, actor) => {
        const slug = param(req, 'slug');
        const id = param(req, 'id');
        // The hash of the call the page showed: an approval is of that call and no other (docs/approvals.md).
        if (decision === 'approve')
          await deps.management.approveApproval(actor, slug, id, { callHash: formOf(req, APPROVAL_FORMS.approve).call_hash });
        else await deps.management.denyApproval(actor, slug, id);
        back(res, base(slug), decision === 'approve' ? 'approval-approved' : 'approval-denied');
      }),
    );
  }
  router.post(
    APPROVAL_FORMS.approveWithPasskey.path,
    page$(async (req, res, actor) => {
      const slug = param(req, 'slug');
      const fields = formOf<(typeof APPROVAL_FORMS.approveWithPasskey)['schema']>(req, APPROVAL_FORMS.approveWithPasskey);
      const nonce = fields.nonce;
      const approval = (await deps.management.listApprovals(actor, slug)).find((a) => a.id === param(req, 'id'));
      const userId = actor.kind === 'person' ? actor.userId : '';
      // The challenge answered must be the one made of this call and this page's nonce: taken once.
      const who =
        approval && deps.passkeys
          ? await deps.passkeys.asserted(req, res, 'approval', userId, boundOf(approval, nonce))
          : 'That passkey was not accepted. Try again.';
      if (!approval || typeof who === 'string') {
        // Without an accepted passkey this is a plain approval's rules: a recent factor first.
        if (actor.kind === 'person' && (actor.factorAt === undefined || now() - actor.factorAt > STEP_UP_MINUTES * 60_000))
          throw new StepUpRequired(`${base(slug)}/${encodeURIComponent(param(req, 'id'))}`, STEP_UP_MINUTES);
        if (!approval) throw new ManagementError(404, 'There is no such approval in this project.');
        return review(req, res, actor, typeof who === 'string' ? who : undefined);
      }
      // The passkey is a second factor given just now: the approval's step-up is met by it.
      await markFactorUsed(deps.redis, req, now());
      const credential = JSON.parse(String((req.body as Record<string, unknown>)['credential'])) as {
        id: string;
        response: { clientDataJSON: string; authenticatorData: string; signature: string };
      };
      const proof: PasskeyApproval = {
        credentialId: credential.id,
        nonce,
        clientDataJSON: credential.response.clientDataJSON,
        authenticatorData: credential.response.authenticatorData,
        signature: credential.response.signature,
      };
      const stepped: Actor = actor.kind === 'person' ? { ...actor, factorAt: now() } : actor;
      await deps.management.approveApproval(stepped, slug, approval.id, { callHash: approval.callHash, passkey: proof });
      back(res, base(slug), 'approval-approved');
    }),
  );
}
