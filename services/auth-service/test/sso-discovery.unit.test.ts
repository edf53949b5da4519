/**
 * Discovery of a company's provider goes through the guarded client (docs/auth-service.md "Single
 * sign-on"): no loopback or private address and no plain http unless SSO_PRIVATE_ISSUERS=allow,
 * answers bounded by SSO_MAX_RESPONSE_BYTES, and a document naming another issuer refused.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { SSO_MAX_RESPONSE_BYTES, SsoError } from '@svc/sso';
import { providerClient } from '../src/sso/provider-client.ts';

let server: Server;
let base: string;
let answer: (issuer: string) => string;

before(async () => {
  server = createServer((req, res) => {
    if (req.url !== '/.well-known/openid-configuration') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(answer(base));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((ok) => server.close(() => ok())));

const metadata = (issuer: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    issuer,
    authorization_endpoint: `${issuer}/auth`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
    response_types_supported: ['code'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    ...extra,
  });

async function refusal(work: Promise<unknown>): Promise<SsoError> {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(err instanceof SsoError, `refused with an SsoError, got ${String(err)}`);
  return err;
}

test('without the operator switch, a provider at a loopback address is refused before any connection, saying how to allow it', async () => {
  const refuse = providerClient({ allowPrivate: false });
  for (const issuer of [
    'https://127.0.0.1:9/',
    'https://localhost:9/',
    'https://[::1]:9/',
    'https://10.1.2.3/',
    'https://169.254.169.254/',
  ]) {
    const err = await refusal(refuse(issuer, 'client', 'secret'));
    assert.equal(err.status, 400, issuer);
    assert.match(err.message, /loopback or private address.*SSO_PRIVATE_ISSUERS=allow/, issuer);
  }
  const plain = await refusal(refuse(base, 'client', 'secret'));
  assert.match(plain.message, /must be an https URL/);
});

test('with the operator switch, a local provider is read; a document naming another issuer is refused', async () => {
  const allow = providerClient({ allowPrivate: true });
  answer = (issuer) => metadata(issuer);
  const config = await allow(base, 'client', 'secret');
  assert.equal(config.serverMetadata().issuer, base);
  answer = () => metadata('https://elsewhere.example');
  const err = await refusal(allow(base, 'client', 'secret'));
  assert.equal(err.status, 502);
  assert.match(err.message, /does not name this issuer/);
});

test(`a discovery document over SSO_MAX_RESPONSE_BYTES (${SSO_MAX_RESPONSE_BYTES}) is refused`, async () => {
  const allow = providerClient({ allowPrivate: true });
  answer = (issuer) => metadata(issuer, { padding: 'x'.repeat(SSO_MAX_RESPONSE_BYTES - 400) });
  assert.ok(answer(base).length < SSO_MAX_RESPONSE_BYTES);
  await allow(base, 'client', 'secret');
  answer = (issuer) => metadata(issuer, { padding: 'x'.repeat(SSO_MAX_RESPONSE_BYTES) });
  const err = await refusal(allow(base, 'client', 'secret'));
  assert.match(err.message, new RegExp(`more than ${SSO_MAX_RESPONSE_BYTES}`));
});
