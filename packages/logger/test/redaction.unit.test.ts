import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { CREDENTIAL_PREFIXES, generateCredential, type CredentialKind } from '@svc/credentials';
import { createLogger, redact } from '../src/index.ts';

test('no credential of any kind reaches the log output', async () => {
  const stream = new PassThrough();
  let out = '';
  stream.on('data', (d: Buffer) => (out += d.toString()));
  const logger = createLogger({ service: 't', stream });
  // Every kind @svc/credentials declares, so a kind added there is redacted the day it is added.
  const kinds = Object.keys(CREDENTIAL_PREFIXES) as CredentialKind[];
  const secrets = kinds.map((k) => generateCredential(k));
  for (const s of secrets) {
    logger.info(`got ${s}`, { header: `Bearer ${s}`, nested: { list: [s] }, password: 'hunter22', err: new Error(`bad key ${s}`) });
  }
  await new Promise((r) => setImmediate(r));
  for (const s of secrets) assert.ok(!out.includes(s), `leaked ${s.slice(0, 12)}`);
  assert.ok(!out.includes('hunter22'));
  assert.match(out, /svc-bot-\w{4}…/);
});

test('redact keeps non-secrets', () => {
  assert.deepEqual(redact({ a: 1, b: 'plain', c: [true] }), { a: 1, b: 'plain', c: [true] });
});
