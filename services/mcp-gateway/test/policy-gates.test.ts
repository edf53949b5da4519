/**
 * Each level x plan x surface (x Agents) gate of the policy table, seen from tools/list and from
 * tools/call, for every tool this gateway has a handler for. Expectations for the table itself are
 * spelled out in packages/policy/test; here the gateway must agree with it on both methods.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DENIAL_META_KEY, type DenialEnvelope } from '@svc/errors';
import type { Gate, KeyLevel, Plan, Role, Surface } from '@svc/policy';
import { GATE_REMEDIATION, PLANS, SURFACES, evaluate } from '@svc/policy';
import { eventually } from '@svc/testkit';
import { call, post, rpc, startFixture, type GatewayFixture } from './support.ts';

let f: GatewayFixture;
before(async () => {
  f = await startFixture({ RATE_LIMIT_SCALE: '1000' });
});
after(() => f.close());

interface Cred {
  role: Role;
  key: string;
  project: string;
  workspace: string;
}

async function credentials(plan: Plan, agents: boolean): Promise<Cred[]> {
  const owner = await f.accounts.users.create({
    emailVerified: true,
    email: `gates-${plan}-${agents}-${Date.now()}@example.com`,
    password: 'correct horse battery',
  });
  await f.accounts.workspaces.setPlan(owner.workspace, plan, agents);
  const project = `g-${plan.toLowerCase()}-${agents ? 'a' : 'n'}-${Math.random().toString(36).slice(2, 7)}`;
  await f.accounts.workspaces.createProject({ slug: project, workspace: owner.workspace });
  const out: Cred[] = [];
  for (const level of ['VIEWER', 'EDITOR', 'ADMIN'] as KeyLevel[]) {
    const k = await f.accounts.keys.createProjectKey({ project, workspace: owner.workspace, level, name: level });
    out.push({ role: level, key: k.key, project, workspace: owner.workspace });
  }
  // Role NONE: a personal key of a user with no role on the project.
  const stranger = await f.accounts.users.create({
    emailVerified: true,
    email: `stranger-${project}@example.com`,
    password: 'correct horse battery',
  });
  out.push({ role: 'NONE', key: (await f.accounts.keys.createUserKey({ userId: stranger.id })).key, project, workspace: owner.workspace });
  return out;
}

test('tools/list and tools/call agree with the policy table for every level, plan, surface and entitlement', async () => {
  const tools = f.gw.gateway.registry.all();
  let checked = 0;
  for (const plan of PLANS) {
    for (const agents of [false, true]) {
      for (const cred of await credentials(plan, agents)) {
        for (const surface of SURFACES as readonly Surface[]) {
          const headers = { 'X-API-Key': cred.key, 'X-Svc-Surface': surface };
          const ctx = { role: cred.role, serviceAccount: false, plan, agents, surface, endpoint: 'project' as const };
          const listed = (await post(f.url, `/mcp/${cred.project}`, rpc('tools/list'), headers)).body.result.tools.map(
            (t: { name: string }) => t.name,
          );
          for (const t of tools) {
            const want = evaluate(t.policy, ctx).allowed;
            assert.equal(
              listed.includes(t.def.name),
              want,
              `tools/list ${t.def.name} for ${cred.role}/${plan}/${surface}/agents=${agents}`,
            );
            const res = await post(f.url, `/mcp/${cred.project}`, call(t.def.name, {}), headers);
            const denied = res.body.error?.data?.code === 'access_denied';
            assert.equal(
              denied,
              !want,
              `tools/call ${t.def.name} for ${cred.role}/${plan}/${surface}/agents=${agents}: ${res.text.slice(0, 300)}`,
            );
            if (denied) {
              assert.ok(['level', 'plan', 'surface', 'entitlement', 'endpoint'].includes(res.body.error.data.gate));
              // A refusal by role is HTTP 403 (MCP authorization, "Error Handling"); by what the
              // project offers, a JSON-RPC method error with HTTP 200 (docs/errors.md).
              assert.equal(
                res.status,
                res.body.error.data.gate === 'level' ? 403 : 200,
                `the status of a ${res.body.error.data.gate} refusal`,
              );
              if (res.body.error.data.gate === 'level') assert.match(res.body.error.data.remedy, /svc_request_access/);
              assertStructuredDenial(res.body.error.data);
            }
            checked++;
          }
        }
      }
    }
  }
  assert.ok(checked >= 5 * 2 * 4 * 3 * 2, `checked ${checked} cells`);
});

/**
 * Every refusal carries the structured denial its gate's declaration states (docs/errors.md
 * "Structured denials"): a level refusal can be remedied by asking for the level, any other gate's
 * refusal is final for this caller.
 */
function assertStructuredDenial(data: { gate: Gate; needed: string; _meta?: Record<string, DenialEnvelope> }): void {
  const envelope = data._meta?.[DENIAL_META_KEY];
  assert.ok(envelope, `a ${data.gate} refusal carries the envelope`);
  assert.equal(envelope.reason, 'insufficient_authorization');
  assert.equal(envelope.remediation, GATE_REMEDIATION[data.gate], data.gate);
  if (data.gate === 'level' && data.needed !== 'a service account key')
    assert.deepEqual(envelope.remediationHints, [
      { type: 'tool', tool: 'svc_request_access', arguments: { requested_level: data.needed } },
    ]);
  else assert.equal(envelope.remediationHints, undefined, `${data.gate}: no hint`);
}

test('svc_help names the gate that keeps each other tool out', async () => {
  const [viewer] = await credentials('FREE', false);
  const res = await post(f.url, `/mcp/${viewer!.project}`, call('svc_help'), { 'X-API-Key': viewer!.key });
  const help = res.body.result.structuredContent;
  for (const u of help.unavailable) assert.match(u.reason, /needs|only available/);
  const names = [...help.available, ...help.unavailable].map((t: { name: string }) => t.name).sort();
  assert.deepEqual(
    names,
    f.gw.gateway.registry
      .all()
      .map((t) => t.def.name)
      .sort(),
  );
});

test('a legacy rlm_ tool name calls the svc_ tool, with a Deprecation header', async () => {
  const [viewer] = await credentials('FREE', false);
  const res = await post(f.url, `/mcp/${viewer!.project}`, call('rlm_help'), { 'X-API-Key': viewer!.key });
  assert.equal(res.status, 200);
  assert.ok(res.body.result.content[0].text.length > 0);
  assert.ok(res.headers.get('deprecation'));
  const plain = await post(f.url, `/mcp/${viewer!.project}`, call('svc_help'), { 'X-API-Key': viewer!.key });
  assert.equal(plain.headers.get('deprecation'), null);
});

test('legacy keys: rlm_pk_ acts as a project key, rlm_team_ as a team key, both deprecated', async () => {
  const [viewer] = await credentials('TEAM', true);
  const pk = await f.accounts.keys.issue({
    kind: 'legacy_project_key',
    name: 'old',
    project: viewer!.project,
    workspace: viewer!.workspace,
  });
  let res = await post(f.url, `/mcp/${viewer!.project}`, call('svc_help'), { 'X-API-Key': pk.key });
  assert.equal(res.status, 200);
  assert.ok(res.headers.get('deprecation'));
  const team = await f.accounts.keys.issue({ kind: 'legacy_team_key', name: 'old team', workspace: viewer!.workspace });
  res = await post(f.url, `/mcp/${viewer!.project}`, call('svc_help'), { 'X-API-Key': team.key });
  assert.equal(res.status, 200);
  res = await post(f.url, `/mcp/team/${viewer!.workspace}`, call('svc_help'), { 'X-API-Key': team.key });
  assert.equal(res.status, 200);
  assert.ok(res.headers.get('deprecation'));
});

test('svc_request_access from role NONE creates a request that approval grants', async () => {
  const creds = await credentials('FREE', false);
  const none = creds.find((c) => c.role === 'NONE')!;
  let res = await post(
    f.url,
    `/mcp/${none.project}`,
    call('svc_request_access', { requested_level: 'VIEWER', reason: 'read the runbooks' }),
    { 'X-API-Key': none.key },
  );
  assert.equal(res.status, 200);
  const id = res.body.result.structuredContent.id;
  const [req] = await f.accounts.accessRequests.list(none.project);
  assert.equal(req!.id, id);
  assert.equal(req!.status, 'pending');
  assert.equal(req!.reason, 'read the runbooks');
  await f.accounts.accessRequests.decide(id, true);
  const roleOf = async (c: { project: string; key: string }) =>
    (await post(f.url, `/mcp/${c.project}`, call('svc_help'), { 'X-API-Key': c.key })).body.result.structuredContent.role;
  await eventually(async () => assert.equal(await roleOf(none), 'VIEWER'), {
    timeout: 1000,
    message: 'the approved VIEWER level to apply',
  });
  // A project key asking for more: approval raises the key's level.
  const viewer = creds.find((c) => c.role === 'VIEWER')!;
  res = await post(f.url, `/mcp/${viewer.project}`, call('svc_request_access', { requested_level: 'EDITOR', reason: 'upload docs' }), {
    'X-API-Key': viewer.key,
  });
  await f.accounts.accessRequests.decide(res.body.result.structuredContent.id, true);
  await eventually(async () => assert.equal(await roleOf(viewer), 'EDITOR'), {
    timeout: 1000,
    message: "the key's approved EDITOR level to apply",
  });
});
