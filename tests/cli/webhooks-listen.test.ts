/**
 * `svc webhooks listen --forward-to` against the real stack (docs/cli.md "svc webhooks listen"):
 * while a real endpoint of the workspace receives its deliveries from the delivery worker, the
 * listener forwards the same events to a receiver on this machine: the same `webhook-id`, type
 * and data, with Standard Webhooks headers that the `standardwebhooks` library verifies with the
 * session's secret; events outside --events and audit entries that are no event are not sent;
 * Ctrl-C ends it with a count.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { generateCredential } from '@svc/credentials';
import { waitFor } from '@svc/testkit';
import { newPerson, startStack, type Stack } from '../support/stack.ts';
import { BIN, runToEnd, start, tempDir } from './support.ts';

interface Delivery {
  body: string;
  headers: Record<string, string>;
  event: { type: string; data: Record<string, unknown> };
}

/** A receiver that keeps what it is sent and answers 204. */
async function receiver(): Promise<{ url: string; got: Delivery[]; server: Server }> {
  const got: Delivery[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      got.push({ body, headers, event: JSON.parse(body) as Delivery['event'] });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, got, server };
}

let stack: Stack;
let real: Awaited<ReturnType<typeof receiver>>;
let local: Awaited<ReturnType<typeof receiver>>;

before(async () => {
  // The real endpoint is on loopback, which deliveries reach only when an operator allows it (docs/webhooks.md).
  stack = await startStack({ WEBHOOK_ALLOWED_PRIVATE: '127.0.0.1/32' });
  real = await receiver();
  local = await receiver();
});
// Whatever of it started: a before hook that failed half-way must not leave a server holding
// this process open.
after(async () => {
  try {
    for (const r of [real, local]) if (r) await new Promise((ok) => r.server.close(ok));
  } finally {
    await stack?.close();
  }
});

test('listen forwards what the worker delivers, signed with the session secret; --events filters; Ctrl-C stops', async () => {
  const owner = await newPerson(stack, 'cli-listen');
  const personal = (await stack.accounts.keys.createUserKey({ userId: owner.user.id })).key;
  const env = { SVC_API_KEY: personal, SVC_BASE_URL: stack.baseUrl, SVC_CONFIG_DIR: await tempDir('listen') };
  const svc = (...args: string[]) => runToEnd(BIN.svc, args, env);
  const created = await svc('webhooks', 'create', '--url', real.url, '--events', 'key.created,key.revoked');
  assert.equal(created.code, 0, created.stderr);
  const realSecret = created.stdout.trim();

  const listen = start(BIN.svc, ['webhooks', 'listen', '--forward-to', local.url, '--events', 'key.created,key.revoked'], env);
  const [, secret] = await listen.waitForStderr(/Signing secret of this session .*: (whsec_\S+)/);
  assert.match(
    listen.stderr(),
    new RegExp(`Ready: forwarding workspace ${owner.user.workspace}'s key.created, key.revoked to ${local.url}`),
  );

  const key = await svc('keys', 'create', '--project', owner.slug, '--name', 'hooked', '--json');
  assert.equal(key.code, 0, key.stderr);
  const id = (JSON.parse(key.stdout) as { id: string }).id;
  // key.note_changed is no event; key.disabled is one, but not asked for.
  assert.equal((await svc('keys', 'note', id, 'a note', '--project', owner.slug)).code, 0);
  assert.equal((await svc('keys', 'disable', id, '--project', owner.slug)).code, 0);
  assert.equal((await svc('keys', 'revoke', id, '--project', owner.slug)).code, 0);

  const types = (r: { got: Delivery[] }) => r.got.map((d) => d.event.type);
  await waitFor(() => types(local).length >= 2 && types(real).length >= 2, {
    timeout: 20_000,
    message: 'both receivers to get two events',
  });
  assert.deepEqual(types(local), ['key.created', 'key.revoked']);
  assert.deepEqual(types(real), ['key.created', 'key.revoked']);
  for (const [i, forwarded] of local.got.entries()) {
    const delivered = real.got[i]!;
    new Webhook(secret!).verify(forwarded.body, forwarded.headers);
    new Webhook(realSecret).verify(delivered.body, delivered.headers);
    assert.equal(forwarded.headers['webhook-id'], delivered.headers['webhook-id'], 'the same message id as the real delivery');
    const { detail: _detail, ...data } = delivered.event.data;
    assert.deepEqual({ ...forwarded.event.data, detail: undefined }, { ...data, detail: undefined });
    assert.throws(() => new Webhook(realSecret).verify(forwarded.body, forwarded.headers), 'signed with the session secret only');
  }
  await waitFor(() => listen.stdout().includes('key.revoked'), 'the listener to print the second event');
  assert.match(listen.stdout(), /key\.created {2}msg_\S+ {2}204 \(\d+ ms\)\n.*key\.revoked {2}msg_\S+ {2}204/);

  listen.child.kill('SIGINT');
  const ended = await listen.exit;
  assert.equal(ended.code, 0, ended.stderr);
  assert.match(ended.stderr, /Stopped: 2 events forwarded\./);
});

test('listen refuses a missing or wrong --forward-to and a malformed --secret before reading anything', async () => {
  const env = {
    SVC_API_KEY: generateCredential('user_key'),
    SVC_BASE_URL: 'http://127.0.0.1:9',
    SVC_CONFIG_DIR: await tempDir('listen-usage'),
  };
  const missing = await runToEnd(BIN.svc, ['webhooks', 'listen'], env);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Give --forward-to URL/);
  const secret = await runToEnd(BIN.svc, ['webhooks', 'listen', '--forward-to', 'http://localhost:4242/h', '--secret', 'whsec_short'], env);
  assert.equal(secret.code, 2);
  assert.match(secret.stderr, /--secret must be whsec_/);
});
