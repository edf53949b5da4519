/**
 * A company's SAML 2.0 identity provider for the tests (docs/auth-service.md "SAML"), written to
 * SAML 2.0 Core and Bindings on xml-crypto with a self-signed certificate made at start: it reads
 * an AuthnRequest sent by HTTP-Redirect (Bindings §3.4: raw DEFLATE, base64), shows a login page,
 * and posts a Response whose assertion it signs (exclusive c14n, RSA-SHA256, the Signature after the
 * Issuer, Core §5.4) to the ACS by HTTP-POST (Bindings §3.5). `response` builds any Response the
 * tests ask for, honest or hostile (another key, no signature, altered fields).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { inflateRawSync } from 'node:zlib';
import { generate } from 'selfsigned';
import { SignedXml } from 'xml-crypto';
import { freePort } from '@svc/testkit';

const NS = 'xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"';
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';

export interface SamlKey {
  privateKey: string;
  cert: string;
}

/** What the IdP read of the last AuthnRequest it was sent. */
export interface AuthnRequestSeen {
  id: string;
  acsUrl: string;
  issuer: string;
}

/** Every field of a Response the tests may set; `response` fills the honest rest. */
export interface ResponseSpec {
  inResponseTo: string | null;
  acsUrl: string;
  audience: string;
  nameId: string;
  groups?: string[];
  issuer?: string;
  assertionId?: string;
  recipient?: string;
  destination?: string;
  subjectInResponseTo?: string | null;
  notBefore?: Date;
  notOnOrAfter?: Date;
  /** Whose key signs the assertion: the IdP's (default), another, or none. */
  signer?: 'idp' | 'other' | 'none';
  /** The Response element signed too (with the IdP's key). */
  signResponse?: boolean;
}

export interface SamlIdp {
  entityId: string;
  ssoUrl: string;
  metadataXml: string;
  cert: string;
  /** The people the login page accepts, by login name. */
  directory: Map<string, { email: string; groups: string[] }>;
  last(): AuthnRequestSeen | null;
  /** A Response as XML (not yet base64). */
  response(spec: ResponseSpec): string;
  close(): Promise<void>;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
const bodyOf = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');

async function newSamlKey(name: string): Promise<SamlKey> {
  const made = await generate([{ name: 'commonName', value: name }], { keySize: 2048, algorithm: 'sha256' });
  return { privateKey: made.private, cert: made.cert };
}

/** Signs the element named `local` (the first one), its Signature placed after its Issuer. */
function signElement(xml: string, local: 'Assertion' | 'Response', key: SamlKey): string {
  const sig = new SignedXml({
    privateKey: key.privateKey,
    publicCert: key.cert,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: EXC_C14N,
  });
  sig.addReference({
    xpath: `//*[local-name(.)='${local}']`,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', EXC_C14N],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  sig.computeSignature(xml, {
    prefix: 'ds',
    location: { reference: `//*[local-name(.)='${local}']/*[local-name(.)='Issuer']`, action: 'after' },
  });
  return sig.getSignedXml();
}

/** The Assertion element of a spec, unsigned. */
export function assertionXml(s: ResponseSpec, issuer: string): string {
  const now = new Date();
  const before = s.notBefore ?? new Date(now.getTime() - 30_000);
  const after = s.notOnOrAfter ?? new Date(now.getTime() + 5 * 60_000);
  const subjectIrt = s.subjectInResponseTo === undefined ? s.inResponseTo : s.subjectInResponseTo;
  const groups = (s.groups ?? []).map((g) => `<saml:AttributeValue>${esc(g)}</saml:AttributeValue>`).join('');
  return `<saml:Assertion ${NS} ID="${s.assertionId ?? `_a${randomBytes(16).toString('hex')}`}" Version="2.0" IssueInstant="${iso(now)}">\
<saml:Issuer>${esc(s.issuer ?? issuer)}</saml:Issuer>\
<saml:Subject><saml:NameID Format="${EMAIL_FORMAT}">${esc(s.nameId)}</saml:NameID>\
<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData${subjectIrt ? ` InResponseTo="${esc(subjectIrt)}"` : ''} NotOnOrAfter="${iso(after)}" Recipient="${esc(s.recipient ?? s.acsUrl)}"/></saml:SubjectConfirmation></saml:Subject>\
<saml:Conditions NotBefore="${iso(before)}" NotOnOrAfter="${iso(after)}"><saml:AudienceRestriction><saml:Audience>${esc(s.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>\
<saml:AuthnStatement AuthnInstant="${iso(now)}" SessionIndex="_s${randomBytes(8).toString('hex')}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>\
<saml:AttributeStatement><saml:Attribute Name="groups">${groups}</saml:Attribute></saml:AttributeStatement>\
</saml:Assertion>`;
}

/** A Response around an assertion (signed or not, as given). */
function responseXml(s: ResponseSpec, issuer: string, assertion: string): string {
  const irt = s.inResponseTo ? ` InResponseTo="${esc(s.inResponseTo)}"` : '';
  return `<samlp:Response ${NS} ID="_r${randomBytes(16).toString('hex')}" Version="2.0" IssueInstant="${iso(new Date())}" Destination="${esc(s.destination ?? s.acsUrl)}"${irt}>\
<saml:Issuer>${esc(issuer)}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>\
${assertion}</samlp:Response>`;
}

async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  let text = '';
  for await (const chunk of req as AsyncIterable<Buffer>) text += chunk.toString('utf8');
  return new URLSearchParams(text);
}

/** The AuthnRequest of an HTTP-Redirect URL (Bindings §3.4.4.1). */
function readRequest(url: URL): AuthnRequestSeen | null {
  const param = url.searchParams.get('SAMLRequest');
  if (!param) return null;
  const xml = inflateRawSync(Buffer.from(param, 'base64')).toString('utf8');
  const attr = (name: string) => new RegExp(`<(?:\\w+:)?AuthnRequest[^>]*\\s${name}="([^"]*)"`).exec(xml)?.[1] ?? '';
  return { id: attr('ID'), acsUrl: attr('AssertionConsumerServiceURL'), issuer: /<(?:\w+:)?Issuer[^>]*>([^<]*)</.exec(xml)?.[1] ?? '' };
}

const loginPage = (rid: string) => `<!doctype html><html lang="en"><head><title>Company sign-in</title></head><body>
<h1>Company sign-in</h1><form method="post" action="/login"><input type="hidden" name="rid" value="${esc(rid)}">
<label for="login">Login</label><input id="login" name="login" autofocus><button type="submit">Sign in to the company</button></form></body></html>`;

const postPage = (acs: string, samlResponse: string) => `<!doctype html><html lang="en"><head><title>Signing in</title></head>
<body onload="document.forms[0].submit()"><form method="post" action="${esc(acs)}"><input type="hidden" name="SAMLResponse" value="${samlResponse}">
<noscript><button type="submit">Continue</button></noscript></form></body></html>`;

export async function startSamlIdp(): Promise<SamlIdp & { other: SamlKey; key: SamlKey }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const entityId = `${base}/saml/metadata`;
  const key = await newSamlKey('company-idp');
  const other = await newSamlKey('someone-else');
  const directory = new Map<string, { email: string; groups: string[] }>();
  const seen = new Map<string, AuthnRequestSeen>();
  let last: AuthnRequestSeen | null = null;

  function response(spec: ResponseSpec): string {
    let assertion = assertionXml(spec, entityId);
    const signer = spec.signer ?? 'idp';
    if (signer !== 'none') assertion = signElement(assertion, 'Assertion', signer === 'idp' ? key : other);
    const xml = responseXml(spec, entityId, assertion);
    return spec.signResponse ? signElement(xml, 'Response', key) : xml;
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', base);
      if (req.method === 'GET' && url.pathname === '/saml/sso') {
        const request = readRequest(url);
        if (!request) return void res.writeHead(400).end('no SAMLRequest');
        last = request;
        const rid = randomBytes(8).toString('hex');
        seen.set(rid, request);
        return void res.writeHead(200, { 'content-type': 'text/html' }).end(loginPage(rid));
      }
      if (req.method === 'POST' && url.pathname === '/login') {
        const form = await formOf(req);
        const request = seen.get(form.get('rid') ?? '');
        const person = directory.get(form.get('login') ?? '');
        if (!request || !person) return void res.writeHead(403, { 'content-type': 'text/html' }).end('<p>Unknown person</p>');
        const xml = response({
          inResponseTo: request.id,
          acsUrl: request.acsUrl,
          audience: request.issuer,
          nameId: person.email,
          groups: person.groups,
        });
        return void res.writeHead(200, { 'content-type': 'text/html' }).end(postPage(request.acsUrl, Buffer.from(xml).toString('base64')));
      }
      res.writeHead(404).end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const ssoUrl = `${base}/saml/sso`;
  const metadataXml = `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${entityId}">
<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol" WantAuthnRequestsSigned="false">
<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${bodyOf(key.cert)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
<md:NameIDFormat>${EMAIL_FORMAT}</md:NameIDFormat>
<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${base}/saml/sso-post"/>
<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${ssoUrl}"/>
</md:IDPSSODescriptor></md:EntityDescriptor>`;
  return {
    entityId,
    ssoUrl,
    metadataXml,
    cert: key.cert,
    key,
    other,
    directory,
    last: () => last,
    response,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
