/**
 * The SAML 2.0 sign-in of a workspace (docs/auth-service.md "SAML"): SP-initiated only. `start`
 * sends an AuthnRequest by HTTP-Redirect (SAML 2.0 Bindings §3.4) and keeps its ID; the ACS takes
 * the Response by HTTP-POST (§3.5), claims the request it answers (GETDEL), checks it
 * (saml-verify.ts) and hands the identity to the browser's GET back on svc's origin, where the
 * cookie of the browser that started the sign-in is read (a cross-site POST does not carry it).
 * The person is then accepted by the one completion both protocols share (provision.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { BUCKETS, type Limiter } from '@svc/limits';
import type { Logger } from '@svc/logger';
import { readCookie } from '../http/web-session.ts';
import { SSO_MAX_SAML_RESPONSE_BYTES, SSO_STATE_TTL_SECONDS, SsoError, samlServiceProvider, type SamlStore, type SsoStore } from '@svc/sso';
import type { CallbackOutcome } from './flow.ts';
import type { Provisioning } from './provision.ts';
import { claimedRequest, identityOf, responseEnvelope, samlFor, verifyRefusal } from './saml-verify.ts';

const BROWSER_COOKIE = 'svc_saml';
const COOKIE_PATH = '/sso/saml/';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const refused = (workspace: string | null, err: SsoError): CallbackOutcome => ({ ok: false, workspace, refused: err });

export interface SamlFlowDeps {
  store: SsoStore;
  saml: SamlStore;
  provisioning: Provisioning;
  throttle: Limiter;
  logger: Logger;
  authUrl: string;
  secure: boolean;
}

export function samlFlow(deps: SamlFlowDeps) {
  const cookie = { httpOnly: true, sameSite: 'lax' as const, secure: deps.secure, path: COOKIE_PATH };

  async function idpOf(workspace: string) {
    const settings = await deps.store.settings(workspace);
    if (!settings?.saml) throw new SsoError(404, 'SAML single sign-on is not set up for this workspace.');
    return { settings, idp: settings.saml };
  }

  /** The ACS's checks of one Response; the identity handed on under a one-time code. */
  async function check(req: Request, workspace: string): Promise<string> {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const samlResponse = typeof body['SAMLResponse'] === 'string' ? body['SAMLResponse'] : '';
    if (!samlResponse) throw new SsoError(400, 'The sign-in answer holds no SAMLResponse.');
    if (samlResponse.length > SSO_MAX_SAML_RESPONSE_BYTES) throw new SsoError(413, 'The sign-in answer is too large.');
    const { idp } = await idpOf(workspace);
    // The workspace's share of the ACS's work, counted once it is known to have a SAML IdP (no counter for made-up names).
    if ((await deps.throttle.attempt('samlAcsPerWorkspace', workspace, BUCKETS.samlAcsPerWorkspace)) > 0) {
      throw new SsoError(429, 'Too many sign-in answers for this workspace right now. Try again in a minute.');
    }
    const envelope = responseEnvelope(samlResponse);
    if (!envelope) throw new SsoError(400, "The sign-in answer from your company's identity provider could not be read.");
    // docs/auth-service.md "SAML": an answer no request of svc asked for (IdP-initiated) is refused.
    if (!envelope.inResponseTo) {
      throw new SsoError(400, 'Sign-ins started at the identity provider are not accepted. Start from svc’s sign-in page.', 'unsolicited');
    }
    const pending = await deps.saml.takeRequest(envelope.inResponseTo);
    if (!pending || pending.workspace !== workspace) throw new SsoError(400, 'This sign-in expired or was already used. Sign in again.');
    let profile;
    try {
      ({ profile } = await samlFor(deps.authUrl, workspace, idp, claimedRequest(envelope.inResponseTo)).validatePostResponseAsync({
        SAMLResponse: samlResponse,
      }));
    } catch (err) {
      throw verifyRefusal(err);
    }
    if (!profile) throw new SsoError(400, 'The sign-in answer holds no assertion.');
    const identity = await identityOf(profile, {
      idp,
      acsUrl: samlServiceProvider(deps.authUrl, workspace).acsUrl,
      destination: envelope.destination,
      claimOnce: (id, end) => deps.saml.claimAssertion(workspace, idp.entityId, id, end, Date.now()),
    });
    const code = randomBytes(32).toString('base64url');
    await deps.saml.putHandoff(code, { request: pending, identity });
    return code;
  }

  return {
    /** Sends the browser to the IdP with an AuthnRequest, remembering its ID for the answer. */
    async start(res: Response, workspace: string, returnTo: string): Promise<void> {
      const { idp } = await idpOf(workspace);
      const browser = randomBytes(32).toString('base64url');
      const pending = { workspace, browser: sha(browser), returnTo };
      const keep = {
        saveAsync: async (id: string) => (await deps.saml.startRequest(id, pending), { value: id, createdAt: Date.now() }),
        getAsync: async () => null,
        removeAsync: async () => null,
      };
      const newId = () => `_${randomBytes(20).toString('hex')}`;
      const url = await samlFor(deps.authUrl, workspace, idp, keep, newId).getAuthorizeUrlAsync('', undefined, {});
      res.cookie(BROWSER_COOKIE, browser, { ...cookie, maxAge: SSO_STATE_TTL_SECONDS * 1000 });
      res.redirect(303, url);
    },

    /** POST /sso/saml/:workspace/acs: the Response checked, then the browser sent back to svc's origin to finish. */
    async acs(req: Request, res: Response, workspace: string): Promise<CallbackOutcome | null> {
      try {
        const code = await check(req, workspace);
        res.redirect(303, `${COOKIE_PATH}${encodeURIComponent(workspace)}/done?code=${code}`);
        return null;
      } catch (err) {
        // Anything but a refusal (the store unreachable) is the error pages' to answer (a 503).
        if (!(err instanceof SsoError)) throw err;
        deps.logger.info('saml sign-in refused', { workspace, problem: err.message, detail: err.detail });
        return refused(err.status === 404 ? null : workspace, err);
      }
    },

    /** GET /sso/saml/:workspace/done: the browser that started the sign-in, then the person accepted. */
    async done(req: Request, res: Response, workspace: string): Promise<CallbackOutcome> {
      const code = typeof req.query['code'] === 'string' ? req.query['code'] : '';
      const handoff = code ? await deps.saml.takeHandoff(code) : null;
      res.clearCookie(BROWSER_COOKIE, cookie);
      if (!handoff || handoff.request.workspace !== workspace) {
        return refused(null, new SsoError(400, 'This sign-in expired or was already used. Sign in again.'));
      }
      const browser = readCookie(req, BROWSER_COOKIE);
      if (!browser || sha(browser) !== handoff.request.browser) {
        return refused(workspace, new SsoError(400, 'This sign-in was started in another browser. Sign in again here.'));
      }
      try {
        const { settings } = await idpOf(workspace);
        const { identity } = handoff;
        // The IdP of a workspace that proved the address's domain vouches for it: SAML has no
        // email_verified; the domain proof is the check (docs/auth-service.md "SAML").
        const person = await deps.provisioning.signIn(
          workspace,
          settings,
          { issuer: identity.issuer, subject: identity.nameId, email: identity.email, emailVerified: true, groups: identity.groups },
          req.ip ?? 'unknown',
        );
        return { ok: true, workspace, person, returnTo: handoff.request.returnTo };
      } catch (err) {
        if (!(err instanceof SsoError)) throw err;
        deps.logger.info('saml sign-in refused', { workspace, problem: err.message, detail: err.detail });
        return refused(workspace, err);
      }
    },

    /** GET /sso/saml/:workspace/metadata: the SP's metadata for the IdP to import (SAML 2.0 Metadata §2.4.4). */
    async metadata(res: Response, workspace: string): Promise<void> {
      const { idp } = await idpOf(workspace);
      const xml = samlFor(deps.authUrl, workspace, idp, claimedRequest('')).generateServiceProviderMetadata(null, null);
      res.type('application/samlmetadata+xml').send(xml);
    },
  };
}
