/**
 * The checks of a SAML Response at a workspace's ACS (docs/auth-service.md "SAML"). node-saml
 * checks the XML signatures against the IdP's certificates (the assertion must be signed; the
 * Response too when the workspace asks), refuses a Response with more than one assertion (XML
 * signature wrapping), and checks the audience, NotBefore/NotOnOrAfter with SSO_SAML_CLOCK_SKEW_MS,
 * and InResponseTo against the one request this answer claimed. We then check what it leaves out:
 * the Issuer, the Destination and the bearer confirmation's Recipient (SAML 2.0 Profiles §4.1.4.2,
 * §4.1.4.3), and the assertion's ID, accepted once until its NotOnOrAfter.
 */
import { DOMParser } from '@xmldom/xmldom';
import * as xpath from 'xpath';
import { SAML, ValidateInResponseTo, type CacheProvider, type Profile } from '@node-saml/node-saml';
import {
  SSO_MAX_GROUPS_READ,
  SSO_SAML_CLOCK_SKEW_MS,
  SSO_STATE_TTL_SECONDS,
  SsoError,
  samlServiceProvider,
  type SamlIdentity,
  type SamlIdp,
} from '@svc/sso';

/** SAML 2.0 Core §8.3.1: the NameID format of an email address. */
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';

const pem = (body: string) => `-----BEGIN CERTIFICATE-----\n${body.replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE-----`;

/** node-saml for one workspace's SP and IdP; `cache` holds the request ids it may accept or stores new ones. */
export function samlFor(authUrl: string, workspace: string, idp: SamlIdp, cache: CacheProvider, newId?: () => string): SAML {
  const sp = samlServiceProvider(authUrl, workspace);
  return new SAML({
    issuer: sp.entityId,
    callbackUrl: sp.acsUrl,
    audience: sp.entityId,
    entryPoint: idp.ssoUrl,
    idpCert: idp.certificates.map(pem),
    idpIssuer: idp.entityId,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: idp.wantResponseSigned,
    acceptedClockSkewMs: SSO_SAML_CLOCK_SKEW_MS,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: SSO_STATE_TTL_SECONDS * 1000,
    cacheProvider: cache,
    identifierFormat: idp.emailAttribute ? null : EMAIL_FORMAT,
    disableRequestedAuthnContext: true,
    ...(newId ? { generateUniqueId: newId } : {}),
  });
}

/** The one request id this answer may be for (claimed from Redis before): node-saml's cache for one check. */
export function claimedRequest(id: string): CacheProvider {
  return {
    saveAsync: async () => null,
    // Its age is bounded by the request's own TTL in Redis (SSO_STATE_TTL_SECONDS): node-saml reads it as just made.
    getAsync: async (key) => (key === id ? new Date().toISOString() : null),
    removeAsync: async () => null,
  };
}

/** The document, or null when it is not well-formed XML (or holds a document type: nothing in SAML needs one). */
function parse(xml: string): Document | null {
  if (/<!DOCTYPE/i.test(xml)) return null;
  let bad = false;
  const fail = () => void (bad = true);
  try {
    const doc = new DOMParser({ errorHandler: { warning: () => undefined, error: fail, fatalError: fail } }).parseFromString(
      xml,
      'text/xml',
    );
    return bad ? null : (doc as unknown as Document);
  } catch {
    return null;
  }
}

const attr = (expr: string, node: Node): string | null => {
  const found = xpath.select(expr, node) as Attr[];
  return found.length > 0 ? (found[0]!.value ?? null) : null;
};

/** The Response element's InResponseTo and Destination, read before any check only to find the request. */
export function responseEnvelope(samlResponse: string): { inResponseTo: string | null; destination: string | null } | null {
  const doc = parse(Buffer.from(samlResponse, 'base64').toString('utf8'));
  if (!doc) return null;
  return {
    inResponseTo: attr("/*[local-name()='Response']/@InResponseTo", doc),
    destination: attr("/*[local-name()='Response']/@Destination", doc),
  };
}

/** An attribute's values as strings (node-saml gives one value bare, several as a list). */
const valuesOf = (v: unknown): string[] => (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string');

/** What the signed assertion itself says beyond node-saml's profile: its ID, recipient and end. */
function signedFacts(profile: Profile): { id: string; recipient: string | null; notOnOrAfter: number } {
  const doc = parse(profile.getAssertionXml?.() ?? '');
  if (!doc) throw new SsoError(400, 'The sign-in answer holds no readable signed assertion.');
  const root = "/*[local-name()='Assertion']";
  const confirmation = `${root}/*[local-name()='Subject']/*[local-name()='SubjectConfirmation'][@Method='${BEARER}']/*[local-name()='SubjectConfirmationData']`;
  const ends = [attr(`${confirmation}/@NotOnOrAfter`, doc), attr(`${root}/*[local-name()='Conditions']/@NotOnOrAfter`, doc)]
    .filter((v): v is string => v !== null)
    .map((v) => Date.parse(v))
    .filter((v) => Number.isFinite(v));
  return {
    id: attr(`${root}/@ID`, doc) ?? '',
    recipient: attr(`${confirmation}/@Recipient`, doc),
    notOnOrAfter: ends.length > 0 ? Math.min(...ends) : NaN,
  };
}

/**
 * The identity a verified profile names, after the checks node-saml leaves to us; `claimOnce`
 * claims the assertion's ID (false: seen before).
 */
export async function identityOf(
  profile: Profile,
  p: { idp: SamlIdp; acsUrl: string; destination: string | null; claimOnce: (id: string, notOnOrAfter: number) => Promise<boolean> },
): Promise<SamlIdentity> {
  if (profile.issuer !== p.idp.entityId) {
    throw new SsoError(400, "The sign-in answer was issued by another identity provider than your company's.", `issuer ${profile.issuer}`);
  }
  // SAML 2.0 Bindings §3.5.5.2: a Destination, when present, must be the ACS it arrived at.
  if (p.destination !== null && p.destination !== p.acsUrl) {
    throw new SsoError(400, 'The sign-in answer was sent to another address than this workspace’s.', `destination ${p.destination}`);
  }
  const facts = signedFacts(profile);
  if (facts.recipient !== p.acsUrl) {
    throw new SsoError(400, 'The sign-in answer was meant for another recipient than this workspace’s.', `recipient ${facts.recipient}`);
  }
  if (!facts.id || !Number.isFinite(facts.notOnOrAfter)) {
    throw new SsoError(400, 'The sign-in answer’s assertion has no ID or no end of validity.');
  }
  if (!(await p.claimOnce(facts.id, facts.notOnOrAfter))) {
    throw new SsoError(400, 'This sign-in answer was already used. Sign in again.', `assertion ${facts.id} replayed`);
  }
  const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
  const email = p.idp.emailAttribute
    ? (valuesOf(attributes[p.idp.emailAttribute])[0] ?? '')
    : profile.nameIDFormat === EMAIL_FORMAT
      ? profile.nameID
      : '';
  const groups = valuesOf(attributes[p.idp.groupsAttribute]).slice(0, SSO_MAX_GROUPS_READ);
  return { issuer: p.idp.entityId, nameId: profile.nameID, email, groups };
}

/** Why node-saml refused the answer, in the person's words (its message goes to the log). */
export function verifyRefusal(err: unknown): SsoError {
  if (err instanceof SsoError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  const says = (re: RegExp) => re.test(detail);
  if (says(/signature|multiple assertions|Cannot obtain assertion/i)) {
    return new SsoError(400, "The sign-in answer is not signed by your company's identity provider.", detail);
  }
  if (says(/audience/i)) return new SsoError(400, 'The sign-in answer was meant for another service.', detail);
  if (says(/expired|not yet valid|subject confirmation/i)) {
    return new SsoError(400, 'The sign-in answer is expired or not yet valid. Sign in again.', detail);
  }
  if (says(/InResponseTo/i)) return new SsoError(400, 'The sign-in answer was not for this sign-in. Sign in again.', detail);
  if (says(/SAML provider returned/i)) {
    return new SsoError(403, "Your company's identity provider refused the sign-in. Ask your administrator for access.", detail);
  }
  return new SsoError(400, "The sign-in answer from your company's identity provider could not be read.", detail);
}
