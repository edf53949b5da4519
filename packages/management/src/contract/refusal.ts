/**
 * A refusal's body (docs/errors.md "REST"): the one shape of every 4xx and 5xx answer of the
 * management API, declared once for the OpenAPI document and the typed client's refusals.
 */
import type { FromSchema } from 'json-schema-to-ts';

export const REFUSAL = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: {
          type: 'string',
          description: 'Machine code, e.g. missing_authentication, invalid_api_key, rate_limited, access_denied.',
        },
        message: { type: 'string', description: 'Human message, e.g. "Invalid API key".' },
        remedy: { type: 'string', description: 'What to do about it.' },
        field: { type: 'string', description: 'The input field a 400 of the management API is about, when it is one.' },
        page: { type: 'string', description: 'Where a step_up_required action can be done after a second factor: a dashboard page.' },
        _meta: {
          type: 'object',
          description:
            'An authorization refusal\'s structured denial under "io.modelcontextprotocol/authorization": reason, remediation (available, unavailable, undisclosed) and remediationHints (docs/errors.md "Structured denials").',
          additionalProperties: true,
        },
        retryAfterMs: { type: 'integer', minimum: 0, description: 'A limit refusal: milliseconds to wait before retrying.' },
        limit: { type: 'integer', minimum: 0, description: 'A limit refusal: the limit that refused.' },
        remaining: { type: 'integer', minimum: 0, description: 'A limit refusal: what remains of it.' },
      },
    },
  },
} as const;

/** A refusal as a client reads it. */
export type Refusal = FromSchema<typeof REFUSAL>;
