/**
 * A service account's failing `jwks_uri` is fetched once, not once per token request
 * (docs/auth-service.md "Client ID Metadata Documents", packages/bounds/src/failure-memory.ts):
 * oidc-provider keeps a client's key set only once it was read, so every client-credentials
 * request used to fetch a failing URL again. The auth-service's outgoing fetch is the test's
 * stand-in (StartAuthServiceOptions.fetch), behind the same failure memory production uses.
 */
import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { after, before, test } from 'node:test';
import { outsideLoopBudget } from '@svc/testkit';
import { newPerson, startStack, type Stack } from '../support/stack.ts';

const BROKEN = 'keys.broken.example';
let stack: Stack;
let botId = '';
let slug = '';
const fetched: string[] = [];
const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });

before(async () => {
  stack = await outsideLoopBudget(() =>
    startStack(
      {},
      {
        // The JWKS host does not answer: the fetch throws, as the guarded fetch does for a refused
        // or unreachable host.
        authFetch: async (url, options) => {
          if (new URL(String(url)).host !== BROKEN) return globalThis.fetch(url, options);
          fetched.push(String(url));
          throw Object.assign(new Error(`connect ECONNREFUSED ${BROKEN}`), { code: 'ECONNREFUSED' });
        },
      },
    ),
  );
  const person = await newPerson(stack, 'jf');
  slug = person.slug;
  const { bot } = await stack.accounts.bots.create({ workspace: person.user.workspace, name: 'ci' });
  botId = bot.id;
  await stack.accounts.bots.grant(botId, slug, 'VIEWER');
  await stack.accounts.serviceAccountClients.setKeys(botId, { jwksUri: `https://${BROKEN}/jwks` });
});
after(async () => {
  await stack.close();
});

/** An ES256 client assertion (RFC 7523 §2.2) for the service account. */
function assertion(): string {
  const now = Math.floor(Date.now() / 1000);
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const head = b64({ alg: 'ES256', typ: 'JWT', kid: 'k1' });
  const body = b64({ iss: botId, sub: botId, aud: stack.authUrl, iat: now, exp: now + 60, jti: randomUUID() });
  const signature = sign('sha256', Buffer.from(`${head}.${body}`), {
    key: createPrivateKey(privateKey.export({ format: 'pem', type: 'pkcs8' })),
    dsaEncoding: 'ieee-p1363',
  });
  return `${head}.${body}.${signature.toString('base64url')}`;
}

test('a failing jwks_uri: every token request is invalid_client, and the URL is fetched once for all of them', async () => {
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`${stack.authUrl}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: botId,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: assertion(),
        resource: `${stack.baseUrl}/mcp/${slug}`,
      }),
    });
    const body = (await res.json()) as { error?: string };
    assert.deepEqual([res.status, body.error], [401, 'invalid_client'], `request ${i}`);
  }
  assert.deepEqual(fetched, [`https://${BROKEN}/jwks`], 'one fetch for five requests (FETCH_FAILURE_MEMORY_MS)');
});
