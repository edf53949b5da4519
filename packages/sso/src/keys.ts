/** The Redis keys of single sign-on (docs/redis-schema.md, section "auth-service (single sign-on)"). */
export const SK = {
  /** A workspace's provider and policy: hash {kind, issuer, clientId, secretSealed, saml, defaultRole, required, groupRoles, updatedAt}. */
  config: (workspace: string) => `svc:sso:config:${workspace}`,
  /** A workspace's claimed domains: hash domain -> JSON {token, verifiedAt}. */
  claims: (workspace: string) => `svc:sso:claims:${workspace}`,
  /** A proven domain -> the one workspace it belongs to (SET NX when proven). */
  domain: (domain: string) => `svc:sso:domain:${domain}`,
  /** A started sign-in, by the SHA-256 of its state: JSON {workspace, nonce, verifier, browser, returnTo}; taken with GETDEL. */
  state: (stateDigest: string) => `svc:sso:state:${stateDigest}`,
  /**
   * A workspace's links from a person's subject at an issuer to their svc account: hash
   * SHA-256 of `<issuer>\n<sub>` -> userId, written by an SSO sign-in through the workspace's
   * provider, read by the ID-JAG grant (docs/auth-service.md "Enterprise-managed authorization").
   */
  links: (workspace: string) => `svc:sso:links:${workspace}`,
  /** A SAML AuthnRequest sent, by the SHA-256 of its ID: JSON {workspace, browser, returnTo}; taken with GETDEL (its InResponseTo answers once). */
  samlRequest: (idDigest: string) => `svc:sso:saml:request:${idDigest}`,
  /** A SAML assertion accepted, by the SHA-256 of `<issuer>\n<ID>`: SET NX until its NotOnOrAfter, so it is accepted once. */
  samlAssertion: (workspace: string, idDigest: string) => `svc:sso:saml:assertion:${workspace}:${idDigest}`,
  /** A checked SAML answer waiting for the browser's GET back to svc, by the SHA-256 of its code; taken with GETDEL. */
  samlHandoff: (codeDigest: string) => `svc:sso:saml:handoff:${codeDigest}`,
};
