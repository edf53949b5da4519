/**
 * What a passkey form sends (docs/auth-service.md "Passkeys"): the form's fields, declared as a
 * JSON Schema and checked with ajv as every form is, and the credential JSON the page's script
 * puts in `credential`, checked against its own schema before the library reads it.
 */
import { JsonBoundsError, parseJson } from '@svc/bounds';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { checkOf } from '@svc/management/check';

/** The longest credential JSON a form may carry (an attestation with `none` is about 1 KB). */
export const MAX_CREDENTIAL_JSON_CHARS = 8192;
/** The longest base64url field of a credential (ids and keys are far shorter). */
const MAX_FIELD = 4096;

const b64 = { type: 'string', maxLength: MAX_FIELD, pattern: '^[A-Za-z0-9_-]*$' } as const;

const FORM = {
  type: 'object',
  properties: { csrf: { type: 'string' }, credential: { type: 'string', minLength: 2, maxLength: MAX_CREDENTIAL_JSON_CHARS } },
  required: ['credential'],
} as const;

const CREDENTIAL = {
  type: 'object',
  properties: {
    id: b64,
    rawId: b64,
    type: { type: 'string', enum: ['public-key'] },
    response: {
      type: 'object',
      properties: { clientDataJSON: b64, attestationObject: b64, authenticatorData: b64, signature: b64, userHandle: b64 },
      required: ['clientDataJSON'],
    },
    clientExtensionResults: { type: 'object' },
  },
  required: ['id', 'rawId', 'type', 'response'],
} as const;

/** The credential a form carries, or the problem (a sentence for the page, answered 400). */
// Compiled at start-up (checkOf), not inside the first sign-in they check.
const formProblem = checkOf(FORM);
const credentialProblem = checkOf(CREDENTIAL);

export function credentialOf(
  body: unknown,
  kind: 'attestation' | 'assertion',
): { credential: RegistrationResponseJSON & AuthenticationResponseJSON } | { problem: string } {
  const fields = body && typeof body === 'object' ? { ...(body as Record<string, unknown>) } : {};
  const found = formProblem(fields);
  if (found) return { problem: `The field "${found.field}" ${found.problem}.` };
  let json: unknown;
  try {
    // The one bounded reader (docs/security.md "Bounds"): the field's length alone allows deep nesting.
    json = parseJson(String(fields['credential']));
  } catch (err) {
    return {
      problem:
        err instanceof JsonBoundsError ? `The field "credential" is refused: ${err.message}.` : 'The field "credential" is not JSON.',
    };
  }
  const bad = credentialProblem(json);
  if (bad) return { problem: `The credential's field "${bad.field}" ${bad.problem}.` };
  const response = (json as { response: Record<string, unknown> }).response;
  const needed = kind === 'attestation' ? ['attestationObject'] : ['authenticatorData', 'signature'];
  const missing = needed.find((k) => typeof response[k] !== 'string');
  if (missing) return { problem: `The credential's field "response.${missing}" is missing.` };
  return { credential: { clientExtensionResults: {}, ...(json as object) } as RegistrationResponseJSON & AuthenticationResponseJSON };
}
