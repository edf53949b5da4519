/** The policy table against docs/contract.md "Surfaces and tool policy", row by row. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CallerContext, Plan, Role, Surface } from '../src/index.ts';
import { APPROVAL_RULES, PLANS, TOOL_POLICIES, approvalNeeded, evaluate, isApprovalRule, planLimits, toolPolicy } from '../src/index.ts';

const ctx = (o: Partial<CallerContext>): CallerContext => ({
  role: 'ADMIN',
  serviceAccount: false,
  plan: 'ENTERPRISE',
  agents: true,
  surface: 'orchestrator',
  endpoint: 'project',
  ...o,
});
const allowed = (tool: string, o: Partial<CallerContext>, args?: Record<string, unknown>) =>
  evaluate(toolPolicy(tool)!, ctx(o), args).allowed;

test('the table has exactly the tools of docs/contract.md', () => {
  assert.deepEqual(TOOL_POLICIES.map((p) => p.name).sort(), [
    'svc_approval_status',
    'svc_ask',
    'svc_claim',
    'svc_context_query',
    'svc_help',
    'svc_htask_create',
    'svc_inject',
    'svc_multi_project_query',
    'svc_recall',
    'svc_remember',
    'svc_request_access',
    'svc_search',
    'svc_swarm_create',
    'svc_upload_document',
  ]);
});

test('minimum levels', () => {
  const expect: Record<string, Role> = {
    svc_help: 'NONE',
    svc_request_access: 'NONE',
    svc_context_query: 'VIEWER',
    svc_ask: 'VIEWER',
    svc_search: 'VIEWER',
    svc_recall: 'VIEWER',
    svc_inject: 'EDITOR',
    svc_upload_document: 'EDITOR',
    svc_remember: 'EDITOR',
    svc_swarm_create: 'ADMIN',
    svc_claim: 'ADMIN',
    svc_htask_create: 'ADMIN',
  };
  const roles: Role[] = ['NONE', 'VIEWER', 'EDITOR', 'ADMIN'];
  for (const [tool, min] of Object.entries(expect)) {
    for (const role of roles) {
      assert.equal(allowed(tool, { role }), roles.indexOf(role) >= roles.indexOf(min), `${tool} at ${role}`);
    }
  }
});

test('minimum plans', () => {
  const expect: Record<string, Plan> = {
    svc_help: 'FREE',
    svc_request_access: 'FREE',
    svc_context_query: 'FREE',
    svc_ask: 'FREE',
    svc_search: 'FREE',
    svc_recall: 'PRO',
    svc_inject: 'FREE',
    svc_upload_document: 'FREE',
    svc_remember: 'PRO',
    svc_swarm_create: 'TEAM',
    svc_claim: 'TEAM',
    svc_htask_create: 'TEAM',
  };
  for (const [tool, min] of Object.entries(expect)) {
    for (const plan of PLANS) assert.equal(allowed(tool, { plan }), PLANS.indexOf(plan) >= PLANS.indexOf(min), `${tool} on ${plan}`);
  }
});

test('surfaces: svc_remember only on companion and orchestrator; svc_htask_create only on orchestrator', () => {
  const surfaces: Surface[] = ['hosted', 'companion', 'orchestrator'];
  for (const s of surfaces) {
    assert.equal(allowed('svc_remember', { surface: s }), s !== 'hosted');
    assert.equal(allowed('svc_htask_create', { surface: s }), s === 'orchestrator');
    assert.equal(allowed('svc_search', { surface: s }), true);
  }
});

test('the Agents entitlement gates memory writes and swarms', () => {
  for (const t of ['svc_remember', 'svc_swarm_create', 'svc_claim']) assert.equal(allowed(t, { agents: false }), false, t);
  for (const t of ['svc_htask_create', 'svc_recall', 'svc_upload_document']) assert.equal(allowed(t, { agents: false }), true, t);
});

test('svc_search: keyword on FREE, semantic and hybrid need PRO', () => {
  assert.equal(allowed('svc_search', { plan: 'FREE' }, { mode: 'keyword' }), true);
  assert.equal(allowed('svc_search', { plan: 'FREE' }, { mode: 'semantic' }), false);
  assert.equal(allowed('svc_search', { plan: 'FREE' }, { mode: 'hybrid' }), false);
  assert.equal(allowed('svc_search', { plan: 'PRO' }, { mode: 'hybrid' }), true);
  const d = evaluate(toolPolicy('svc_search')!, ctx({ plan: 'SOLO' }), { mode: 'semantic' });
  assert.deepEqual(d, { allowed: false, gate: 'plan', needed: 'PRO', have: 'SOLO' });
});

test('svc_multi_project_query: service accounts, team endpoint, TEAM plan', () => {
  assert.equal(allowed('svc_multi_project_query', { serviceAccount: true, endpoint: 'team', role: 'NONE' }), true);
  assert.equal(allowed('svc_multi_project_query', { serviceAccount: false, endpoint: 'team' }), false);
  assert.equal(allowed('svc_multi_project_query', { serviceAccount: true, endpoint: 'project' }), false);
  assert.equal(allowed('svc_multi_project_query', { serviceAccount: true, endpoint: 'team', plan: 'PRO' }), false);
});

test('not a query: svc_help, svc_request_access and svc_approval_status; every other tool counts', () => {
  for (const p of TOOL_POLICIES)
    assert.equal(p.countsAsQuery, !['svc_help', 'svc_request_access', 'svc_approval_status'].includes(p.name), p.name);
});

test('plan limits: the current set, the earlier set, the scale', () => {
  assert.deepEqual(
    PLANS.map((p) => [planLimits(p).requestsPerMinute, planLimits(p).monthlyQueries]),
    [
      [30, 1000],
      [80, 5000],
      [120, 25000],
      [300, 100000],
      [2000, 500000],
    ],
  );
  assert.deepEqual(planLimits('FREE', 'earlier'), { requestsPerMinute: 10, monthlyQueries: 100, fairUse: false });
  assert.equal(planLimits('ENTERPRISE', 'earlier').monthlyQueries, null);
  assert.equal(planLimits('PRO', 'current', 10).requestsPerMinute, 1200);
});

test('approval rules: none and absent run at once, all holds every call, agents holds third-party clients, below holds lower levels', () => {
  const by = (role: Role, thirdPartyClient = false) => ({ role, thirdPartyClient });
  assert.equal(approvalNeeded(undefined, by('VIEWER', true)), false);
  assert.equal(approvalNeeded('none', by('VIEWER', true)), false);
  assert.equal(approvalNeeded('all', by('ADMIN')), true);
  assert.equal(approvalNeeded('agents', by('ADMIN', true)), true);
  assert.equal(approvalNeeded('agents', by('VIEWER', false)), false);
  assert.equal(approvalNeeded('below:ADMIN', by('EDITOR')), true);
  assert.equal(approvalNeeded('below:ADMIN', by('ADMIN', true)), false);
  assert.equal(approvalNeeded('below:EDITOR', by('EDITOR')), false);
  assert.equal(approvalNeeded('below:VIEWER', by('NONE')), true);
  assert.deepEqual(APPROVAL_RULES.filter(isApprovalRule), [...APPROVAL_RULES]);
  assert.equal(isApprovalRule('below:OWNER'), false);
});
