/**
 * Workload identity federation (docs/workload-identity.md): a CI job reaches a project with no
 * stored secret. Tokens are minted here with jose in exactly the shapes each issuer documents (a
 * GitHub Actions OIDC token, a Kubernetes projected service-account token, a SPIFFE JWT-SVID), their
 * keys served by a local JWKS HTTP server behind the guarded fetch's stand-in (or inline, the SPIFFE
 * bundle); the owner trusts the issuers over REST; the workload trades its token at the token
 * endpoint (RFC 7523 jwt-bearer, public client svc-workload) for a service-account token that calls
 * a tool through the gateway. A generated table of refusals: each rule claim perturbed, expired,
 * replayed, wrong audience, unknown issuer, another workspace's rule, alg none and HS256, the key of
 * another issuer, too long-lived, issued in the future.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { GITHUB_ACTIONS_ISSUER } from '@svc/accounts';
import { JWT_BEARER_GRANT } from '@svc/auth-service/oauth/id-jag.ts';
import {
  WORKLOAD_ASSERTION_MAX_LENGTH,
  WORKLOAD_ASSERTION_MAX_LIFETIME_SECONDS,
  WORKLOAD_CLIENT_ID,
  WORKLOAD_TOKEN_TTL_SECONDS,
} from '@svc/auth-service/oauth/workload-identity.ts';
import { outsideLoopBudget } from '@svc/testkit';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { newPerson, startStack, type Stack } from '../support/stack.ts';
import { mcpCall } from './gateway-call.ts';

/** A Kubernetes cluster's OIDC issuer (its service-account issuer discovery, KEP-1393). */
const K8S_ISSUER = 'https://oidc.cluster.example.com';
const TRUST_DOMAIN = 'spiffe://example.org';
const K8S_JWKS_PATH = '/openid/v1/jwks';

let stack: Stack;
let jwksServer: Server;
let jwksBase: string;
const fetched: { url: string; tenant: string | undefined }[] = [];
const keys: Record<'github' | 'k8s' | 'spiffe' | 'stranger', { privateKey: CryptoKey; jwk: Record<string, unknown> }> = {} as never;
let owner: Awaited<ReturnType<typeof newPerson>>;
let other: Awaited<ReturnType<typeof newPerson>>;
let ownerKey: string;
let otherKey: string;
const bots: Record<'ci' | 'prod' | 'other' | 'nogrant', string> = {} as never;

async function keyPair(kid: string, alg: 'RS256' | 'ES256') {
  const pair = await generateKeyPair(alg);
  return { privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg, use: 'sig' } };
}

before(async () => {
  keys.github = await keyPair('gh-1', 'RS256');
  keys.k8s = await keyPair('k8s-1', 'RS256');
  keys.spiffe = await keyPair('spiffe-1', 'ES256');
  keys.stranger = await keyPair('gh-1', 'RS256');
  // The issuers' JWKS endpoints, a real HTTP server on loopback.
  jwksServer = createServer((req, res) => {
    const body =
      req.url === '/github/.well-known/jwks'
        ? { keys: [keys.github.jwk] }
        : req.url === `/k8s${K8S_JWKS_PATH}`
          ? { keys: [keys.k8s.jwk] }
          : null;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? { error: 'not found' }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  jwksBase = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}`;
  stack = await outsideLoopBudget(() =>
    startStack(
      {},
      {
        // Our stand-in for DNS and TLS: the issuers' https JWKS URLs are answered by the local server.
        authFetch: async (url, init) => {
          const target = new URL(String(url));
          const local = { 'token.actions.githubusercontent.com': '/github', 'oidc.cluster.example.com': '/k8s' }[target.host];
          if (!local) return globalThis.fetch(url, init);
          fetched.push({ url: target.href, tenant: (init as { tenant?: string } | undefined)?.tenant });
          return globalThis.fetch(`${jwksBase}${local}${target.pathname}`);
        },
      },
    ),
  );
  owner = await newPerson(stack, 'wl');
  other = await newPerson(stack, 'wl-other');
  ownerKey = (await stack.accounts.keys.createUserKey({ userId: owner.user.id })).key;
  otherKey = (await stack.accounts.keys.createUserKey({ userId: other.user.id })).key;
  const ws = owner.user.workspace;
  for (const [name, level] of [
    ['ci', 'VIEWER'],
    ['prod', 'EDITOR'],
    ['nogrant', null],
  ] as const) {
    const { bot } = await stack.accounts.bots.create({ workspace: ws, name: `wl-${name}` });
    if (level) await stack.accounts.bots.grant(bot.id, owner.slug, level);
    bots[name] = bot.id;
  }
  const { bot: otherBot } = await stack.accounts.bots.create({ workspace: other.user.workspace, name: 'wl-other' });
  await stack.accounts.bots.grant(otherBot.id, other.slug, 'ADMIN');
  bots.other = otherBot.id;

  const github = {
    kind: 'github-actions',
    rules: [
      {
        service_account: bots.ci,
        claims: {
          repository: 'acme/app',
          ref: 'refs/heads/main',
          workflow: 'CI',
          job_workflow_ref: 'acme/app/.github/workflows/ci.yml@refs/heads/main',
        },
      },
      { service_account: bots.prod, claims: { sub: 'repo:acme/app:environment:production', environment: 'production' } },
      { service_account: bots.nogrant, claims: { repository: 'acme/tools' } },
    ],
  };
  const k8s = {
    kind: 'kubernetes',
    issuer: K8S_ISSUER,
    jwks_uri: `${K8S_ISSUER}${K8S_JWKS_PATH}`,
    rules: [{ service_account: bots.ci, claims: { namespace: 'ci-*', service_account: 'runner' } }],
  };
  const spiffe = {
    kind: 'spiffe',
    issuer: TRUST_DOMAIN,
    jwks: { keys: [keys.spiffe.jwk] },
    rules: [{ service_account: bots.prod, claims: { spiffe_id: `${TRUST_DOMAIN}/ns/deploy/**` } }],
  };
  for (const body of [github, k8s, spiffe]) assert.equal((await rest(ownerKey, owner.user.workspace, 'POST', body)).status, 201);
  // Another workspace trusts GitHub too, for its own repository and service account.
  const theirs = { kind: 'github-actions', rules: [{ service_account: bots.other, claims: { repository: 'other/app' } }] };
  assert.equal((await rest(otherKey, other.user.workspace, 'POST', theirs)).status, 201);
});
after(async () => {
  await stack?.close();
  jwksServer?.close();
});

/** The management API's workload-issuers collection, with a personal key. */
async function rest(key: string, workspace: string, method: string, body?: unknown, id = '') {
  const res = await fetch(`${stack.baseUrl}/api/v1/workspaces/${workspace}/workload-issuers${id ? `/${id}` : ''}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const resourceOf = (slug: string) => `${stack.baseUrl}/mcp/${slug}`;
const now = () => Math.floor(Date.now() / 1000);

/**
 * A GitHub Actions OIDC token as GitHub documents it ("About security hardening with OpenID
 * Connect": the example token's header and claims), for a push to main of acme/app.
 */
function githubClaims(over: JWTPayload = {}): JWTPayload {
  const t = now();
  return {
    jti: randomUUID(),
    sub: 'repo:acme/app:ref:refs/heads/main',
    aud: stack.authUrl,
    ref: 'refs/heads/main',
    sha: 'd7c6ecdb1c2c6f3b7fa0d8c4b0c9f0b4a1a2b3c4',
    repository: 'acme/app',
    repository_owner: 'acme',
    repository_owner_id: '1000',
    repository_id: '2000',
    repository_visibility: 'private',
    run_id: '123456789',
    run_number: '42',
    run_attempt: '1',
    runner_environment: 'github-hosted',
    actor: 'octocat',
    actor_id: '583231',
    workflow: 'CI',
    workflow_ref: 'acme/app/.github/workflows/ci.yml@refs/heads/main',
    job_workflow_ref: 'acme/app/.github/workflows/ci.yml@refs/heads/main',
    head_ref: '',
    base_ref: '',
    event_name: 'push',
    ref_type: 'branch',
    iss: GITHUB_ACTIONS_ISSUER,
    nbf: t - 5,
    iat: t,
    exp: t + 300,
    ...over,
  };
}

/** A Kubernetes projected service-account token (TokenRequest API): `kubernetes.io` names namespace, pod and account. */
function k8sClaims(ns = 'ci-build', sa = 'runner', over: JWTPayload = {}): JWTPayload {
  const t = now();
  return {
    aud: [stack.authUrl],
    exp: t + 600,
    iat: t,
    nbf: t,
    iss: K8S_ISSUER,
    jti: randomUUID(),
    'kubernetes.io': {
      namespace: ns,
      node: { name: 'node-1', uid: randomUUID() },
      pod: { name: 'build-7f9c', uid: randomUUID() },
      serviceaccount: { name: sa, uid: randomUUID() },
    },
    sub: `system:serviceaccount:${ns}:${sa}`,
    ...over,
  };
}

/** A SPIFFE JWT-SVID (SPIFFE JWT-SVID §3): `sub` the SPIFFE ID, `aud`, `exp`; no `iss` needed. */
function svidClaims(id = `${TRUST_DOMAIN}/ns/deploy/sa/release`, over: JWTPayload = {}): JWTPayload {
  const t = now();
  return { sub: id, aud: [stack.authUrl], exp: t + 300, iat: t, ...over };
}

/** The release workflow's job: not CI, so only the environment rule can match it. */
const RELEASE = { workflow: 'Release', job_workflow_ref: 'acme/app/.github/workflows/release.yml@refs/heads/main' };

type Signer = keyof typeof keys;
const ALG: Record<Signer, string> = { github: 'RS256', k8s: 'RS256', spiffe: 'ES256', stranger: 'RS256' };

async function mint(claims: JWTPayload, signer: Signer, kid = String(keys[signer].jwk['kid'])): Promise<string> {
  for (const [k, v] of Object.entries(claims)) if (v === undefined) delete claims[k];
  // GitHub's header: {"typ":"JWT","alg":"RS256","x5t":...,"kid":...}; Kubernetes' {"alg":"RS256","kid":...}.
  const header = signer === 'k8s' ? { alg: ALG[signer], kid } : { alg: ALG[signer], typ: 'JWT', kid };
  return new SignJWT(claims).setProtectedHeader(header).sign(keys[signer].privateKey);
}

async function exchange(assertion: string, slug = owner.slug, extra: Record<string, string> = {}) {
  const res = await fetch(`${stack.authUrl}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: JWT_BEARER_GRANT,
      client_id: WORKLOAD_CLIENT_ID,
      assertion,
      resource: resourceOf(slug),
      ...extra,
    }),
  });
  return {
    status: res.status,
    body: (await res.json()) as {
      access_token?: string;
      expires_in?: number;
      refresh_token?: string;
      error?: string;
      error_description?: string;
    },
  };
}

async function helpText(token: string, slug = owner.slug): Promise<string> {
  const r = await mcpCall(stack.baseUrl, slug, token);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body.result as { content: { text: string }[] }).content[0]!.text;
}

test('a GitHub Actions job reaches the project with no stored secret: its OIDC token buys a short-lived service-account token', async () => {
  const r = await exchange(await mint(githubClaims(), 'github'));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.match(r.body.access_token ?? '', /^svc_at_/);
  assert.equal(r.body.expires_in, WORKLOAD_TOKEN_TTL_SECONDS);
  assert.equal(r.body.refresh_token, undefined);
  assert.match(await helpText(r.body.access_token!), /Tools you can call/);
  // The token is the service account's, nothing more: not another project's, not its team endpoint.
  assert.equal((await mcpCall(stack.baseUrl, other.slug, r.body.access_token!)).status, 401);
  // Audited in the workspace, naming the workload and the account it acted as.
  const { entries } = await stack.accounts.audit.page(owner.user.workspace, { action: 'workload.token_issued' });
  const entry = entries.find((e) => e.detail?.['subject'] === 'repo:acme/app:ref:refs/heads/main');
  assert.ok(entry, JSON.stringify(entries));
  assert.equal(entry.target, `service_account:${bots.ci}`);
  assert.equal(entry.detail?.['repository'], 'acme/app');
  // The JWKS URL was fetched through the guarded fetch, with the workspace's share of its pools.
  assert.ok(fetched.some((f) => f.url === `${GITHUB_ACTIONS_ISSUER}/.well-known/jwks` && f.tenant === owner.user.workspace));
});

test('the rules choose the account: a production environment job, a Kubernetes pod, a SPIFFE workload', async () => {
  const envSub = 'repo:acme/app:environment:production';
  const prod = await exchange(await mint(githubClaims({ sub: envSub, environment: 'production', ...RELEASE }), 'github'));
  assert.equal(prod.status, 200, JSON.stringify(prod.body));
  const pod = await exchange(await mint(k8sClaims(), 'k8s'));
  assert.equal(pod.status, 200, JSON.stringify(pod.body));
  const svid = await exchange(await mint(svidClaims(), 'spiffe'));
  assert.equal(svid.status, 200, JSON.stringify(svid.body));
  const { entries } = await stack.accounts.audit.page(owner.user.workspace, { action: 'workload.token_issued' });
  const targetOf = (subject: string) => entries.find((e) => e.detail?.['subject'] === subject)?.target;
  assert.equal(targetOf(envSub), `service_account:${bots.prod}`);
  assert.equal(targetOf('system:serviceaccount:ci-build:runner'), `service_account:${bots.ci}`);
  assert.equal(targetOf(`${TRUST_DOMAIN}/ns/deploy/sa/release`), `service_account:${bots.prod}`);
  for (const t of [prod, pod, svid]) assert.match(await helpText(t.body.access_token!), /Tools you can call/);
  // Each JWKS URL fetched once for all its tokens (the issuer keys' cache).
  assert.equal(new Set(fetched.map((f) => f.url)).size, fetched.length, JSON.stringify(fetched));
});

test('each bad workload token is refused with the right OAuth error (a generated table)', async () => {
  const replayed = await mint(githubClaims(), 'github');
  assert.equal((await exchange(replayed)).status, 200);
  const k8sNoJti = await mint(k8sClaims('ci-x', 'runner', { jti: undefined }), 'k8s');
  assert.equal((await exchange(k8sNoJti)).status, 200, 'a token without jti is claimed by its hash');
  const rule = {
    repository: 'acme/app',
    ref: 'refs/heads/main',
    workflow: 'CI',
    job_workflow_ref: 'acme/app/.github/workflows/ci.yml@refs/heads/main',
  };
  const t = now();
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const hs256 = await new SignJWT(githubClaims())
    .setProtectedHeader({ alg: 'HS256', kid: 'gh-1' })
    .sign(new TextEncoder().encode('x'.repeat(32)));
  const cases: [string, Promise<string> | string, string, RegExp, string?][] = [
    // Each claim of the rule perturbed, one at a time (other repository, other branch, ...).
    ...Object.keys(rule).map((claim): [string, Promise<string>, string, RegExp] => [
      `${claim} perturbed`,
      mint(githubClaims({ [claim]: `${githubClaims()[claim] as string}-other` }), 'github'),
      'invalid_grant',
      /no rule of the workload issuer/,
    ]),
    [
      'another branch',
      mint(githubClaims({ ref: 'refs/heads/feature', sub: 'repo:acme/app:ref:refs/heads/feature' }), 'github'),
      'invalid_grant',
      /no rule/,
    ],
    ['another repository', mint(githubClaims({ repository: 'evil/app', repository_owner: 'evil' }), 'github'), 'invalid_grant', /no rule/],
    [
      'another environment',
      mint(githubClaims({ sub: 'repo:acme/app:environment:staging', environment: 'staging', ...RELEASE }), 'github'),
      'invalid_grant',
      /no rule/,
    ],
    ['k8s namespace outside the glob', mint(k8sClaims('prod', 'runner'), 'k8s'), 'invalid_grant', /no rule/],
    ['k8s another service account', mint(k8sClaims('ci-build', 'admin'), 'k8s'), 'invalid_grant', /no rule/],
    ['SPIFFE ID outside the rule', mint(svidClaims(`${TRUST_DOMAIN}/ns/ci/sa/x`), 'spiffe'), 'invalid_grant', /no rule/],
    [
      'SPIFFE ID of another trust domain',
      mint(svidClaims('spiffe://evil.org/ns/deploy/sa/x'), 'spiffe'),
      'invalid_grant',
      /not a workload issuer/,
    ],
    ['expired', mint(githubClaims({ iat: t - 900, nbf: t - 900, exp: t - 600 }), 'github'), 'invalid_grant', /expired/],
    ['not yet valid', mint(githubClaims({ nbf: t + 600 }), 'github'), 'invalid_grant', /nbf claim/],
    ['issued in the future', mint(githubClaims({ iat: t + 120, exp: t + 300 }), 'github'), 'invalid_grant', /iat claim|future/],
    [
      'too long-lived',
      mint(k8sClaims('ci-a', 'runner', { exp: t + WORKLOAD_ASSERTION_MAX_LIFETIME_SECONDS + 60 }), 'k8s'),
      'invalid_grant',
      /at most 3600 seconds/,
    ],
    ['replayed', replayed, 'invalid_grant', /already used/],
    ['replayed without a jti', k8sNoJti, 'invalid_grant', /already used/],
    ['wrong audience', mint(githubClaims({ aud: 'https://github.com/acme' }), 'github'), 'invalid_grant', /aud claim/],
    [
      'unknown issuer',
      mint(githubClaims({ iss: 'https://token.actions.example.net' }), 'github'),
      'invalid_grant',
      /not a workload issuer/,
    ],
    [
      "another workspace's rule",
      mint(githubClaims({ repository: 'other/app', repository_owner: 'other', sub: 'repo:other/app:ref:refs/heads/main' }), 'github'),
      'invalid_grant',
      /no rule/,
    ],
    ['a rule of ours at another workspace', mint(githubClaims(), 'github'), 'invalid_grant', /no rule/, other.slug],
    ['an issuer only another workspace trusts', mint(k8sClaims(), 'k8s'), 'invalid_grant', /not a workload issuer/, other.slug],
    [
      'alg none',
      `${b64({ alg: 'none', typ: 'JWT' })}.${b64(githubClaims())}.`,
      'invalid_grant',
      /alg is not allowed|not a valid signed JWT/,
    ],
    ['HS256', hs256, 'invalid_grant', /alg is not allowed/],
    ['the key of another issuer', mint(githubClaims(), 'k8s', 'gh-1'), 'invalid_grant', /not signed by a key of its issuer/],
    ['a stranger key with the same kid', mint(githubClaims(), 'stranger'), 'invalid_grant', /not signed by a key of its issuer/],
    [
      'a service account without access to the project',
      mint(githubClaims({ repository: 'acme/tools' }), 'github'),
      'invalid_grant',
      /no access to project/,
    ],
    ['not a JWT', 'not.a.jwt', 'invalid_grant', /not a JWT/],
    ['too long', 'a'.repeat(WORKLOAD_ASSERTION_MAX_LENGTH + 1), 'invalid_grant', /longer than 8192/],
  ];
  for (const [label, assertion, error, description, slug] of cases) {
    const r = await exchange(await assertion, slug);
    assert.deepEqual([r.status, r.body.error], [400, error], `${label}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.error_description ?? '', description, `${label}: ${r.body.error_description}`);
  }
  const noProject = await exchange(await mint(githubClaims(), 'github'), 'no-such-project');
  assert.deepEqual([noProject.status, noProject.body.error], [400, 'invalid_target']);
});

test('removing the issuer over REST ends new exchanges; a revoked service account gets no token', async () => {
  const { body } = await rest(ownerKey, owner.user.workspace, 'GET');
  const issuers = body['workload_issuers'] as { id: string; kind: string; rules: unknown[] }[];
  assert.deepEqual(issuers.map((i) => i.kind).sort(), ['github-actions', 'kubernetes', 'spiffe']);
  // Another workspace's owner sees none of them and cannot remove one.
  const k8s = issuers.find((i) => i.kind === 'kubernetes')!;
  assert.equal((await rest(otherKey, owner.user.workspace, 'DELETE', undefined, k8s.id)).status, 403);
  assert.equal((await rest(ownerKey, owner.user.workspace, 'DELETE', undefined, k8s.id)).status, 200);
  const after = await exchange(await mint(k8sClaims(), 'k8s'));
  assert.match(after.body.error_description ?? '', /not a workload issuer/);
  await stack.accounts.bots.revoke(bots.prod);
  const revoked = await exchange(await mint(svidClaims(), 'spiffe'));
  assert.deepEqual([revoked.status, revoked.body.error], [400, 'invalid_grant']);
  assert.match(revoked.body.error_description ?? '', /not live/);
});
