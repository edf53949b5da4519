/**
 * A SAML IdP's public side for tests that configure one without running it (docs/auth-service.md
 * "SAML"): a signing certificate (public only, valid 2026-2076) and the metadata an IdP publishes
 * (SAML 2.0 Metadata §2.4.3 IDPSSODescriptor). tests/support/saml-idp.ts runs a real IdP.
 */

/** A certificate an owner would paste (PEM). */
export const SAML_TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIDHTCCAgWgAwIBAgIJWXL9sduTWCUqMA0GCSqGSIb3DQEBCwUAMB0xGzAZBgNV
BAMTEnN2Yy1hZG1pbiB0ZXN0IElkUDAgFw0yNjAxMDEwMDAwMDBaGA8yMDc2MDEw
MTAwMDAwMFowHTEbMBkGA1UEAxMSc3ZjLWFkbWluIHRlc3QgSWRQMIIBIjANBgkq
hkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAiC9KFCglXD2Ae4qBPI3Js+NzF+n6QiuH
ZHiLjx+mpZZQdXXqJABCOy5W817ZeF+7NZFi5G6yPAGKVOQIwqWBfulKxrNNnWGc
AvAGJ0jk2K3MAuh2O9JUDFIGTTrBUmRaW+BFL3zbTUagzBWTW5uuD4hT5eAQc5Vo
laJfcS27LxSa1hZ5dwQzxsE/VXX+3RyPteu4CDM2MjSQ59DCU+QMGVu5yB7oiuFg
UXJCJ4FozcuaYbNp2L34QKDAXbXZ2Le5R9LvYv82Z9K5/skvPUJ3CxXAarAD5IpA
DLiEI+s80pO1tykRE5HN4yEBZd0SvJI4hDj883e2vaaRhSPUxmsrlwIDAQABo14w
XDAMBgNVHRMBAf8EAjAAMA4GA1UdDwEB/wQEAwIFoDAdBgNVHSUEFjAUBggrBgEF
BQcDAQYIKwYBBQUHAwIwHQYDVR0RBBYwFIISc3ZjLWFkbWluIHRlc3QgSWRQMA0G
CSqGSIb3DQEBCwUAA4IBAQB9yI7iIqSpBesxMViwGNf2O3BaRCcFFmp327ujRKVG
hvQvyUkQUTpyt2jWQLMXJxxad29e99BdFklDEvcJ2eg4Ouc1JMNNEt0xAH+d+TMc
xnnHgs/tGF6Jrhpce7VZIBXIm4dHtCEgWuHUpFZGjlmuS7hms1DGOO9G8Oa4JSzU
trd33CGzgBMF85Clkamqb44E9/yutXxWGMQpFzvKwDrIDvcF0njzoO6Kggo9DWuI
P+9iavYb4EyalYwi2KTug1mY2inttBCdVUPFsYXoXwS+PT96fnJUlIvzULX3+eEC
jnn/VziKCMa06t387w7SJZhPTP1f4p/k3ldnK4fcNUZV
-----END CERTIFICATE-----`;

/** The metadata of an IdP with `entityId`, signing with SAML_TEST_CERT, signing on at `ssoUrl` (HTTP-Redirect). */
export function samlTestMetadata(entityId: string, ssoUrl: string): string {
  const body = SAML_TEST_CERT.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');
  return `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${entityId}"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
<md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${body}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${ssoUrl}"/></md:IDPSSODescriptor></md:EntityDescriptor>`;
}
