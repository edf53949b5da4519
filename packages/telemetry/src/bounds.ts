/** The bounds of what a span carries (docs/operations.md "Traces"), defined here only. */

/** Longest attribute value kept; a longer string is cut to this many characters. */
export const MAX_ATTRIBUTE_LENGTH = 128;
/** Most attributes one span keeps (the SDK's span limit, and the allow-list's filter). */
export const MAX_ATTRIBUTES_PER_SPAN = 12;
/** Most links one span keeps (the Redis call of a batch links the requests it decides). */
export const MAX_LINKS_PER_SPAN = 32;
/** Longest `tracestate` continued: W3C Trace Context §3.3 lets a vendor drop a longer one. */
export const MAX_TRACESTATE_LENGTH = 512;
