/** Parts shared by every operation of the OpenAPI document: the error answers and rate headers. */

/** What each error status of the REST API means. */
const ERROR_STATUSES: Record<string, string> = {
  '400': 'Malformed request (bad JSON, body not an object, oversized body) or arguments that fail the schema.',
  '401': 'Missing authentication, Invalid API key or Invalid OAuth token.',
  '403': 'Refused by the tool policy (access level, plan, surface or entitlement); the remedy says what is needed.',
  '404': 'Unknown tool or project.',
  '409': 'Conflict: the object is not in a state that allows it (management API).',
  '429': 'Rate limit exceeded, or Monthly query limit reached (see Retry-After).',
  '503': 'The store did not answer; retry after Retry-After seconds.',
};

/** The rate-limit headers of an admitted request. */
export const RATE_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests allowed per minute for the plan.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current minute.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix time (seconds) when the window resets.', schema: { type: 'integer' } },
};

/** The error responses of `statuses`, each with the REST error body. */
export function errorResponses(statuses: string[] = Object.keys(ERROR_STATUSES)) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: ERROR_STATUSES[status], content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    ]),
  );
}
