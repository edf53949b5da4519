/**
 * A workspace's SAML 2.0 identity provider and svc's service provider for it (docs/auth-service.md
 * "SAML"): the IdP read from its metadata (SAML 2.0 Metadata §2.4.3 IDPSSODescriptor) or given
 * field by field, judged before it is saved; the SP's entity id, ACS and metadata URLs derived from
 * the auth-service's URL and the workspace.
 */
import { X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import * as xpath from 'xpath';
import { SSO_MAX_SAML_CERTIFICATES, SSO_MAX_SAML_METADATA_BYTES, SSO_MAX_SAML_NAME_LENGTH } from './bounds.ts';
import { SsoError } from './errors.ts';

/** SAML 2.0 Bindings §3.4: the binding svc sends its AuthnRequest with. */
const HTTP_REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/** The IdP of a workspace, as saved. */
export interface SamlIdp {
  entityId: string;
  /** Its SingleSignOnService for the HTTP-Redirect binding. */
  ssoUrl: string;
  /** Its signing certificates, base64 DER (the text of ds:X509Certificate). */
  certificates: string[];
  /** Whether the Response itself must be signed too (the assertion always must). */
  wantResponseSigned: boolean;
  /** The attribute holding the address; empty: the NameID (format emailAddress). */
  emailAttribute: string;
  /** The attribute listing the person's groups, for the group-to-role mapping. */
  groupsAttribute: string;
}

/** What an owner gives: metadata XML, fields, or both (a field given overrides the metadata's). */
export interface SamlIdpInput {
  metadataXml?: string;
  entityId?: string;
  ssoUrl?: string;
  /** One PEM or base64 certificate. */
  certificate?: string;
  wantResponseSigned?: boolean;
  emailAttribute?: string;
  groupsAttribute?: string;
}

/** svc's service provider for a workspace: what the IdP is told (SAML 2.0 Metadata §2.4.4). */
export interface SamlServiceProvider {
  entityId: string;
  acsUrl: string;
  metadataUrl: string;
}

/** The SP of `workspace`; its entity id is its metadata URL, as SAML 2.0 Metadata §4.1 suggests. */
export function samlServiceProvider(authUrl: string, workspace: string): SamlServiceProvider {
  const base = new URL(`/sso/saml/${encodeURIComponent(workspace)}/`, authUrl).href;
  return { entityId: `${base}metadata`, acsUrl: `${base}acs`, metadataUrl: `${base}metadata` };
}

/** A certificate's base64 DER, from PEM or bare base64; null when it is not an X.509 certificate. */
function certificateBody(input: string): string | null {
  const body = input
    .replace(/-----(BEGIN|END) CERTIFICATE-----/g, '')
    .replace(/\s+/g, '')
    .trim();
  if (!body || !/^[A-Za-z0-9+/]+=*$/.test(body)) return null;
  try {
    new X509Certificate(Buffer.from(body, 'base64'));
    return body;
  } catch {
    return null;
  }
}

/** A certificate as the owner sees it: its SHA-256 fingerprint and the end of its validity. */
export function certificateSummary(body: string): { sha256: string; validTo: string } {
  const cert = new X509Certificate(Buffer.from(body, 'base64'));
  return { sha256: cert.fingerprint256, validTo: new Date(cert.validTo).toISOString() };
}

const select = (expr: string, node: Node) => xpath.select(expr, node) as Node[];

/** Entity id, SSO URL and signing certificates of the first IdP described in the metadata. */
function parseMetadata(xml: string): { entityId: string; ssoUrl: string; certificates: string[] } {
  if (Buffer.byteLength(xml) > SSO_MAX_SAML_METADATA_BYTES) {
    throw new SsoError(400, `The metadata must be at most ${SSO_MAX_SAML_METADATA_BYTES / 1024} KiB.`, '', 'metadataXml');
  }
  // No document type: nothing in SAML metadata needs one, and entities are how XML bombs are built.
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new SsoError(400, 'The metadata must not hold a document type.', '', 'metadataXml');
  const errors: string[] = [];
  let entity: Element | undefined;
  try {
    const doc = new DOMParser({
      errorHandler: {
        warning: () => undefined,
        error: (msg: string) => void errors.push(msg),
        fatalError: (msg: string) => void errors.push(msg),
      },
    }).parseFromString(xml, 'text/xml');
    entity = select("//*[local-name()='EntityDescriptor'][*[local-name()='IDPSSODescriptor']]", doc as unknown as Node)[0] as
      Element | undefined;
  } catch (err) {
    errors.push(String(err));
  }
  if (errors.length > 0 || !entity) {
    throw new SsoError(
      400,
      'The metadata is not SAML metadata describing an identity provider (IDPSSODescriptor).',
      errors.join('; '),
      'metadataXml',
    );
  }
  const sso = select(
    `*[local-name()='IDPSSODescriptor']/*[local-name()='SingleSignOnService'][@Binding='${HTTP_REDIRECT}']/@Location`,
    entity,
  )[0];
  const certs = select(
    "*[local-name()='IDPSSODescriptor']/*[local-name()='KeyDescriptor'][not(@use) or @use='signing']//*[local-name()='X509Certificate']",
    entity,
  ).map((n) => n.textContent ?? '');
  return { entityId: entity.getAttribute('entityID') ?? '', ssoUrl: sso?.nodeValue ?? '', certificates: certs };
}

/**
 * The IdP an owner's input describes, judged: a refusal names the field at fault. With neither
 * metadata nor a certificate given, the certificates `saved` are kept.
 */
export function samlIdpOf(input: SamlIdpInput, saved: string[] = []): SamlIdp {
  const meta = input.metadataXml?.trim() ? parseMetadata(input.metadataXml) : { entityId: '', ssoUrl: '', certificates: saved };
  const entityId = (input.entityId?.trim() || meta.entityId).trim();
  const ssoUrl = (input.ssoUrl?.trim() || meta.ssoUrl).trim();
  const given = input.certificate?.trim() ? [input.certificate] : meta.certificates;
  if (!entityId || entityId.length > SSO_MAX_SAML_NAME_LENGTH) {
    throw new SsoError(
      400,
      `The IdP's entity id must be 1 to ${SSO_MAX_SAML_NAME_LENGTH} characters (give it or its metadata).`,
      '',
      'entityId',
    );
  }
  if (!URL.canParse(ssoUrl) || !/^https?:$/.test(new URL(ssoUrl).protocol) || ssoUrl.length > SSO_MAX_SAML_NAME_LENGTH) {
    throw new SsoError(400, "The IdP's SSO URL (HTTP-Redirect binding) must be an http(s) URL; give it or its metadata.", '', 'ssoUrl');
  }
  const certificates = [...new Set(given.map(certificateBody))];
  if (certificates.length === 0 || certificates.some((c) => c === null)) {
    throw new SsoError(
      400,
      "The IdP's signing certificate must be an X.509 certificate (PEM or base64); give it or its metadata.",
      '',
      'certificate',
    );
  }
  if (certificates.length > SSO_MAX_SAML_CERTIFICATES) {
    throw new SsoError(400, `At most ${SSO_MAX_SAML_CERTIFICATES} signing certificates (${certificates.length} given).`, '', 'certificate');
  }
  const attribute = (name: 'emailAttribute' | 'groupsAttribute') => {
    const v = (input[name] ?? '').trim();
    if (v.length > SSO_MAX_SAML_NAME_LENGTH)
      throw new SsoError(400, `An attribute name is at most ${SSO_MAX_SAML_NAME_LENGTH} characters.`, '', name);
    return v;
  };
  return {
    entityId,
    ssoUrl,
    certificates: certificates as string[],
    wantResponseSigned: input.wantResponseSigned ?? false,
    emailAttribute: attribute('emailAttribute'),
    groupsAttribute: attribute('groupsAttribute') || 'groups',
  };
}

/** What the audit log records of a saved IdP: its names and its certificates' fingerprints. */
export function samlAuditDetail(idp: SamlIdp): Record<string, string> {
  return {
    kind: 'saml',
    issuer: idp.entityId,
    ssoUrl: idp.ssoUrl,
    certificates: idp.certificates.map((c) => certificateSummary(c).sha256).join(','),
    wantResponseSigned: String(idp.wantResponseSigned),
  };
}
