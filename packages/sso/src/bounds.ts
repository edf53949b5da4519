/**
 * The bounds of single sign-on, each stated with its value in docs/auth-service.md "Single sign-on".
 * One place: the store, the flow, the pages and the tests read them from here.
 */

/** A started SSO sign-in (its state, nonce and PKCE verifier) waits at most 10 minutes for the provider's answer. */
export const SSO_STATE_TTL_SECONDS = 600;
/**
 * A browser session made by an SSO sign-in ends after 8 hours, not the 14 days of a password
 * sign-in: a person removed at the company's provider keeps svc's pages at most this long.
 */
export const SSO_SESSION_MAX_SECONDS = 8 * 3600;
/** Group-to-role rows one workspace may keep. */
export const SSO_MAX_GROUP_MAPPINGS = 20;
/** Email domains one workspace may claim (waiting for proof or proven). */
export const SSO_MAX_DOMAINS = 10;
/** The longest group name mapped, and the most groups of one ID token read. */
export const SSO_MAX_GROUP_LENGTH = 200;
export const SSO_MAX_GROUPS_READ = 200;
/** The largest answer read from a provider (discovery, keys, token response). */
export const SSO_MAX_RESPONSE_BYTES = 64 * 1024;
/** The longest issuer URL, client id and client secret accepted. */
export const SSO_MAX_ISSUER_LENGTH = 500;
export const SSO_MAX_CLIENT_ID_LENGTH = 200;
export const SSO_MAX_CLIENT_SECRET_LENGTH = 500;

/** SAML (docs/auth-service.md "SAML"): the largest IdP metadata document read, and the signing certificates kept of it. */
export const SSO_MAX_SAML_METADATA_BYTES = 100 * 1024;
export const SSO_MAX_SAML_CERTIFICATES = 4;
/** The longest IdP entity id, SSO URL and attribute name accepted. */
export const SSO_MAX_SAML_NAME_LENGTH = 500;
/** The largest SAMLResponse form body read at the ACS; past it, a 413 page and nothing read. */
export const SSO_MAX_SAML_RESPONSE_BYTES = 256 * 1024;
/** The clock skew allowed on an assertion's NotBefore and NotOnOrAfter (SAML 2.0 Core §2.5.1.2). */
export const SSO_SAML_CLOCK_SKEW_MS = 60_000;
/** How long a checked SAML answer waits for the browser's step back to svc's own origin (docs/auth-service.md "SAML"). */
export const SSO_SAML_HANDOFF_SECONDS = 60;
