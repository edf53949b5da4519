/**
 * A device flow's user code as oidc-provider reads it (RFC 8628 §6.1): the code entry throttle
 * counts the code a person typed, and the device pages show it, in the provider's own form.
 */

/** oidc-provider's input normalisation (lib/helpers/user_codes.js): upper case, no non-word characters. */
export function normalizeUserCode(input: string): string {
  return input.toUpperCase().replace(/\W/g, '');
}
