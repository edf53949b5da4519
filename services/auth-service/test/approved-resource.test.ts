/**
 * A person's token is for the project their Grant records, and nothing else (docs/auth-service.md
 * "What a token is for"). Generated: each flow (authorization code with a registered client, the
 * device flow of a registered device client, create-svc's device flow with auto_provision) against
 * each shape of `resource` in the request (absent, one, the same twice, two of the person's
 * projects, another person's project, theirs beside another's) and at the token endpoint (absent,
 * each named one). The person signs in and approves on the real pages, choosing their own sandbox
 * where they are asked to choose (one the request never named). Whatever the shapes, a token issued is for a project the Grant
 * records and the person can see, and a create-svc key is for that project; else nothing is issued.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { oidcRecords } from '@svc/accounts';
import { cookiePairs, DEVICE_GRANT, newProject, postForm, postJson, signedIn, startAuth, type AuthFixture } from './support.ts';

let f: AuthFixture;
before(async () => {
  f = await startAuth();
});
after(() => f.close());

/** A browser of a signed-in person: GET or POST a form, following the redirects that stay on the service. */
async function browser(email: string) {
  const jar = new Map<string, string>();
  const keep = (pairs: string) => {
    for (const kv of pairs.split('; ')) {
      const i = kv.indexOf('=');
      if (i > 0) jar.set(kv.slice(0, i), kv.slice(i + 1));
    }
  };
  keep((await signedIn(f, email)).cookie);
  const once = async (path: string, form?: Record<string, string>) => {
    const res = await fetch(path.startsWith('http') ? path : `${f.url}${path}`, {
      method: form ? 'POST' : 'GET',
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: new URLSearchParams(form) } : {}),
      redirect: 'manual',
    });
    keep(cookiePairs(res));
    return { status: res.status, location: res.headers.get('location') ?? '', text: await res.text() };
  };
  return async (path: string, form?: Record<string, string>) => {
    let page = await once(path, form);
    for (
      let i = 0;
      i < 10 && page.status >= 300 && page.status < 400 && (page.location.startsWith('/') || page.location.startsWith(f.url));
      i++
    )
      page = await once(page.location);
    return page;
  };
}

/** Approves whatever consent page `page` is, choosing `sandbox` where a project is chosen; the page after. */
type Page = { status: number; location: string; text: string };

async function approve(go: Awaited<ReturnType<typeof browser>>, page: Page, sandbox: string): Promise<Page> {
  const action = /action="(\/interaction\/[^"]+\/(?:consent|create-project))"/.exec(page.text)?.[1];
  if (!action) return page;
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
  return go(action, { csrf, project: sandbox, level: 'VIEWER', confirm_key: 'yes' });
}

type Flow = 'authorization code' | 'device' | 'create-svc';
const FLOWS: Flow[] = ['authorization code', 'device', 'create-svc'];
/** The resources a request names, by who owns them: the person's sandbox, their other project, a stranger's. */
const SHAPES: ('mine' | 'other' | 'stranger')[][] = [[], ['mine'], ['mine', 'mine'], ['mine', 'other'], ['stranger'], ['mine', 'stranger']];

for (const flow of FLOWS)
  for (const shape of SHAPES)
    test(`${flow}, resource ${shape.length ? shape.join(' + ') : 'absent'}: a token only for the project the Grant records`, async () => {
      const me = await newProject(f, 'me');
      const other = `${me.slug}-b`;
      await f.accounts.workspaces.createProject({ slug: other, workspace: me.user.workspace });
      // Where the person is asked to choose, they choose a project of theirs the request never named.
      const picked = `${me.slug}-c`;
      await f.accounts.workspaces.createProject({ slug: picked, workspace: me.user.workspace });
      const stranger = await newProject(f, 'stranger');
      const resourceOf = { mine: me.resource, other: `${f.config.baseUrl}/mcp/${other}`, stranger: stranger.resource };
      const named = shape.map((s) => resourceOf[s]);
      const go = await browser(me.user.email);

      const tokenRequests: Record<string, string>[] = [];
      if (flow === 'authorization code') {
        const reg = await postJson(`${f.url}/api/oauth/register`, {
          client_name: 'Helper',
          redirect_uris: ['https://app.example/cb'],
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
        });
        const clientId = String(reg.body['client_id']);
        const verifier = randomBytes(32).toString('base64url');
        const q = new URLSearchParams({
          client_id: clientId,
          response_type: 'code',
          redirect_uri: 'https://app.example/cb',
          scope: 'openid mcp',
          code_challenge: createHash('sha256').update(verifier).digest('base64url'),
          code_challenge_method: 'S256',
          state: 's',
        });
        for (const r of named) q.append('resource', r);
        const page = await go(`/api/oauth/authorize?${q}`);
        const done = page.location.startsWith('https://app.example') ? page : await approve(go, page, picked);
        const code = URL.parse(done.location)?.searchParams.get('code');
        if (!code) return; // refused before a code: nothing issued
        const base = {
          grant_type: 'authorization_code',
          code,
          redirect_uri: 'https://app.example/cb',
          code_verifier: verifier,
          client_id: clientId,
        };
        // One code, one exchange: the resource asked for at the token endpoint is drawn from what was named.
        tokenRequests.push(named.length ? { ...base, resource: named[named.length - 1]! } : base);
      } else {
        const clientId = flow === 'create-svc' ? 'create-svc' : 'svc-mcp';
        // As create-svc and svc ask: create-svc names no scope.
        const form: Record<string, string> = {
          client_id: clientId,
          ...(flow === 'create-svc' ? { auto_provision: 'true' } : { scope: 'mcp' }),
        };
        const body = new URLSearchParams(form);
        for (const r of named) body.append('resource', r);
        const started = await fetch(`${f.url}/api/oauth/device/code`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body,
        });
        const codes = (await started.json()) as Record<string, string>;
        if (started.status !== 200) return; // refused before a code: nothing issued
        const entry = await go('/device');
        const xsrf = /name="xsrf" value="([^"]+)"/.exec(entry.text)?.[1] ?? '';
        await approve(go, await go('/device', { xsrf, user_code: codes['user_code']!, confirm: 'yes' }), picked);
        tokenRequests.push({ grant_type: DEVICE_GRANT, device_code: codes['device_code']!, client_id: clientId });
      }

      // Naming nothing, or the person's own project, is the ordinary case: a token is issued.
      // (create-svc names no resource: it is for the project its page makes or finds.)
      const ordinary = shape.length === 0 || (flow !== 'create-svc' && shape.length === 1 && shape[0] === 'mine');
      if (ordinary) assert.equal(tokenRequests.length, 1, 'the flow reached the token endpoint');
      for (const request of tokenRequests) {
        const answer = await postForm(`${f.url}/api/oauth/token`, request);
        if (ordinary) assert.equal(answer.status, 200, JSON.stringify(answer.body));
        if (answer.status !== 200) {
          assert.equal(answer.body['access_token'], undefined);
          continue;
        }
        const at = await oidcRecords.accessToken(f.client, String(answer.body['access_token']));
        assert.ok(at && 'grantId' in at.payload, "a person's token, stored");
        const grant = await oidcRecords.grant(f.client, at.payload.grantId);
        const aud = at.payload.aud;
        assert.equal(typeof aud, 'string', 'a token for one project');
        assert.ok(grant?.resources[aud as string] !== undefined, `the Grant records ${String(aud)}`);
        const slug = String(aud).slice(`${f.config.baseUrl}/mcp/`.length);
        const project = await f.accounts.workspaces.getProject(slug);
        assert.ok(project && (await f.accounts.workspaces.roleOf(me.user.id, project)) !== 'NONE', `${slug} is the person's`);
        if (answer.body['api_key']) {
          const key = await f.accounts.keys.findByValue(String(answer.body['api_key']));
          assert.equal(key && 'project' in key ? key.project : null, slug, "create-svc's key is for the token's project");
        }
      }
    });
