/**
 * Project > Upstream servers forms (docs/dashboard.md "Forms"): the contract's addUpstream fields
 * (name, url), the timeout as a choice of seconds within its bounds, the optional credential as two
 * text fields (both empty: none); a tool's level from setUpstreamTool's body, its on/off switch and
 * the acceptance of a change and its approval rule as forms of their own; refresh, and remove
 * confirmed first.
 */
import { MANAGEMENT_OPERATIONS } from '@svc/management/contract';
import { UPSTREAM_LIMITS } from '@svc/upstreams';
import { CONFIRM_FIELDS, defineForm, NO_FIELDS } from '../form.ts';

const { addUpstream, setUpstreamTool } = MANAGEMENT_OPERATIONS;
const ADD = addUpstream.body.properties;
const CREDENTIAL = ADD.credential.properties;
const { min, max } = UPSTREAM_LIMITS.timeoutMs;

/** The timeouts offered, in seconds: those within the contract's bounds (UPSTREAM_LIMITS.timeoutMs). */
export const TIMEOUT_SECONDS: readonly string[] = [1, 2, 5, 10, 20, 30, 60].filter((s) => s * 1000 >= min && s * 1000 <= max).map(String);
/** The timeout chosen unless another is. */
export const DEFAULT_TIMEOUT_SECONDS = String(UPSTREAM_LIMITS.timeoutMs.default / 1000);

const ONE = '/projects/:slug/upstreams/:name';
const TOOL = `${ONE}/tools/:tool`;

export const UPSTREAM_FORMS = {
  add: defineForm('addUpstream', '/projects/:slug/upstreams', {
    type: 'object',
    properties: {
      name: ADD.name,
      url: ADD.url,
      timeout: { type: 'string', enum: TIMEOUT_SECONDS, default: DEFAULT_TIMEOUT_SECONDS },
      credential_header: { ...CREDENTIAL.header, default: '' },
      credential_value: { type: 'string', maxLength: CREDENTIAL.value.maxLength, default: '' },
    },
    required: ['name', 'url'],
  }),
  refresh: defineForm('refreshUpstream', `${ONE}/refresh`, NO_FIELDS),
  remove: defineForm('removeUpstream', `${ONE}/remove`, CONFIRM_FIELDS),
  level: defineForm('setUpstreamTool', `${TOOL}/level`, {
    type: 'object',
    properties: { level: setUpstreamTool.body.properties.level },
    required: ['level'],
  }),
  // The switch's button sends the state it turns the tool to.
  enabled: defineForm('setUpstreamTool', `${TOOL}/enabled`, {
    type: 'object',
    properties: { enabled: { type: 'string', enum: ['on', 'off'] } },
    required: ['enabled'],
  }),
  accept: defineForm('setUpstreamTool', `${TOOL}/accept`, NO_FIELDS),
  // What a call spends of its caller's tool budget (docs/operations.md "Limits for agents"): digits
  // here, the bounds checked where every door's change is (@svc/upstreams setTool).
  cost: defineForm('setUpstreamTool', `${TOOL}/cost`, {
    type: 'object',
    properties: { cost: { type: 'string', pattern: '^[0-9]{1,7}$', default: '1' } },
    required: ['cost'],
  }),
  // Which calls wait for an admin's approval (docs/approvals.md "The rule").
  approval: defineForm('setUpstreamTool', `${TOOL}/approval`, {
    type: 'object',
    properties: { approval: setUpstreamTool.body.properties.approval },
    required: ['approval'],
  }),
} as const;
