/**
 * Workload issuers over REST (docs/workload-identity.md "Managing them"), on a running gateway and a
 * real Redis: add (GitHub's defaults filled in, a Kubernetes cluster's JWKS URL, a SPIFFE bundle),
 * list, replace, remove, each audited; at most maxIssuers; every bad input a 400 naming the field;
 * only the owner; a rule may name only a live service account of the same workspace.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, test } from 'node:test';
import { GITHUB_ACTIONS_ISSUER, WORKLOAD_ISSUER_LIMITS } from '@svc/accounts';
import { refusal, success, typedClient, type Answered } from './management-client.ts';
import { seed, startFixture, type GatewayFixture } from './support.ts';

let f: GatewayFixture;
before(async () => {
  f = await startFixture();
});
after(() => f.close());

const answered: Answered[] = [];
const jwks = { keys: [{ ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }), kid: 'k-1' }] };

test('workload issuers over REST: add, list, replace, remove, each audited; bounded; bad input a 400 naming the field; owner only', async () => {
  const ws = await seed(f.accounts, { plan: 'TEAM' });
  const c = typedClient(f.url, (await f.accounts.keys.createUserKey({ userId: ws.userId })).key, answered);
  const params = { workspace: ws.workspace };
  const { bot } = await f.accounts.bots.create({ workspace: ws.workspace, name: 'ci' });
  const add = (body: Record<string, unknown>) => c.addWorkloadIssuer({ params, body: body as never });
  const rule = (claims: Record<string, string>, account = bot.id) => ({ service_account: account, claims });

  const gh = success(await add({ kind: 'github-actions', rules: [rule({ repository: 'acme/app', ref: 'refs/heads/main' })] }), 201);
  assert.deepEqual(
    [gh.body.issuer, gh.body.jwks_uri, gh.body.audience, gh.body.rules],
    [GITHUB_ACTIONS_ISSUER, `${GITHUB_ACTIONS_ISSUER}/.well-known/jwks`, null, [rule({ repository: 'acme/app', ref: 'refs/heads/main' })]],
    "GitHub's issuer and JWKS URL are the defaults",
  );
  const replaced = success(
    await add({ kind: 'github-actions', audience: 'https://svc.example', rules: [rule({ repository_owner: 'acme' })] }),
    201,
  );
  assert.deepEqual([replaced.body.id, replaced.body.audience, replaced.body.rules.length], [gh.body.id, 'https://svc.example', 1]);
  success(
    await add({
      kind: 'kubernetes',
      issuer: 'https://k8s.example',
      jwks_uri: 'https://k8s.example/openid/v1/jwks',
      rules: [rule({ namespace: 'ci-*' })],
    }),
    201,
  );
  success(
    await add({ kind: 'spiffe', issuer: 'spiffe://example.org', jwks, rules: [rule({ spiffe_id: 'spiffe://example.org/ci/**' })] }),
    201,
  );
  for (let i = 3; i < WORKLOAD_ISSUER_LIMITS.maxIssuers; i++)
    success(await add({ kind: 'kubernetes', issuer: `https://k8s${i}.example`, jwks, rules: [rule({ namespace: 'ci' })] }), 201);
  assert.match(
    refusal(await add({ kind: 'kubernetes', issuer: 'https://one-more.example', jwks, rules: [rule({ namespace: 'ci' })] }), 409).message,
    /at most 10 workload issuers/,
  );
  assert.equal(success(await c.listWorkloadIssuers({ params })).body.workload_issuers.length, WORKLOAD_ISSUER_LIMITS.maxIssuers);

  const other = await seed(f.accounts, { plan: 'TEAM' });
  const { bot: foreign } = await f.accounts.bots.create({ workspace: other.workspace, name: 'theirs' });
  const k8s = (r: unknown, more: Record<string, unknown> = {}) => ({
    kind: 'kubernetes',
    issuer: 'https://k8s.example',
    jwks,
    rules: [r],
    ...more,
  });
  const refusals: [Record<string, unknown>, RegExp][] = [
    [{ kind: 'gitlab', rules: [rule({ sub: 'x' })] }, /kind/],
    [{ kind: 'github-actions', rules: [rule({ workflow: 'deploy' })] }, /must pin the owner/],
    [{ kind: 'github-actions', rules: [rule({ repository: '*/app' })] }, /must pin the owner/],
    [{ kind: 'github-actions', rules: [rule({ email: 'a@b' })] }, /names only/],
    [{ kind: 'github-actions', rules: [] }, /rules/],
    [{ kind: 'github-actions', rules: [rule({})] }, /fewer than 1 properties/],
    [{ kind: 'github-actions', rules: [rule({ repository: 'acme/app' }, foreign.id)] }, /not a live service account of/],
    [{ kind: 'github-actions', rules: [rule({ repository: 'acme/app' }, 'bot_nosuch')] }, /not a live service account of/],
    [k8s(rule({ namespace: 'ci' }), { issuer: 'http://k8s.example' }), /https URL/],
    [{ kind: 'kubernetes', issuer: 'https://k8s.example', rules: [rule({ namespace: 'ci' })] }, /Give jwks or jwks_uri/],
    [k8s(rule({ namespace: 'ci' }), { jwks_uri: 'https://k8s.example/jwks' }), /either jwks .* or jwks_uri, not both/],
    [k8s(rule({ namespace: 'ci' }), { jwks: undefined, jwks_uri: 'https://10.0.0.8/jwks' }), /special-use address/],
    [k8s(rule({ namespace: 'ci' }), { jwks: { keys: [{ kty: 'oct', kid: 'k', k: 'c2VjcmV0' }] } }), /private or symmetric/],
    [{ kind: 'spiffe', issuer: 'spiffe://Example.org', jwks, rules: [rule({ spiffe_id: 'spiffe://Example.org/x' })] }, /trust domain/],
    [{ kind: 'spiffe', issuer: 'spiffe://example.org', jwks, rules: [rule({ spiffe_id: 'spiffe://evil.org/x' })] }, /trust domain/],
    [{ kind: 'github-actions', rules: [rule({ repository: 'x'.repeat(WORKLOAD_ISSUER_LIMITS.maxPatternLength + 1) })] }, /256/],
    [{ kind: 'github-actions', extra: 1, rules: [rule({ repository: 'acme/app' })] }, /extra/],
  ];
  for (const [body, message] of refusals) assert.match(JSON.stringify(refusal(await add(body), 400)), message, JSON.stringify(body));

  const one = { ...params, id: gh.body.id };
  assert.deepEqual(success(await c.removeWorkloadIssuer({ params: one })).body, { id: gh.body.id, removed: true });
  refusal(await c.removeWorkloadIssuer({ params: one }), 404);
  assert.equal(await f.accounts.workloadIssuers.find(ws.workspace, GITHUB_ACTIONS_ISSUER), null);
  const audit = success(await c.audit({ params, query: { limit: 500 } })).body.entries;
  assert.equal(audit.filter((e) => e.action === 'workload_issuer.added').length, WORKLOAD_ISSUER_LIMITS.maxIssuers + 1);
  assert.ok(
    audit.some((e) => e.action === 'workload_issuer.added' && e.target.includes(bot.id)),
    'the entry names the account it reaches',
  );
  assert.equal(audit.filter((e) => e.action === 'workload_issuer.removed').length, 1);
  const admin = typedClient(
    f.url,
    (await f.accounts.keys.createProjectKey({ project: ws.project, workspace: ws.workspace, level: 'ADMIN', name: 'a' })).key,
    answered,
  );
  refusal(await admin.listWorkloadIssuers({ params }), 403);
  const stranger = typedClient(f.url, (await f.accounts.keys.createUserKey({ userId: other.userId })).key, answered);
  refusal(
    await stranger.addWorkloadIssuer({ params, body: { kind: 'github-actions', rules: [rule({ repository: 'x/y' })] } as never }),
    403,
  );
});
