/**
 * The Redis commands of a grant at the token endpoint (docs/auth-service.md "Storage round trips";
 * docs/benchmarks.md "Authorization server"): a refresh grant and a service account's
 * client-credentials grant send exactly these commands, in this many round trips, so a command
 * added to either cannot pass unnoticed. Counted, never timed: the commands the auth-service's own
 * connection sent (MONITOR; a script's inner commands are not sent), and the socket reads Redis
 * processed meanwhile (INFO stats `total_reads_processed`: commands sent one after another, each
 * awaiting its reply, are one read each).
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { PublicJwk } from '@svc/accounts';
import { mintRefreshToken, newProject, postForm, startAuth, type AuthFixture } from './support.ts';

let f: AuthFixture;

before(async () => {
  // No webhook worker: its turns would share the service's connection with the grants counted.
  f = await startAuth({ env: { WEBHOOKS: 'off' } });
});
after(() => f.close());

const token = (form: Record<string, string>) => postForm(`${f.url}/api/oauth/token`, form);

const reads = async () => Number(/^total_reads_processed:(\d+)/m.exec(await f.client.info('stats'))?.[1]);

/** The address the auth-service's connection speaks from (its connection is named at connect). */
async function serviceAddress(): Promise<string> {
  const list = String(await f.client.call('CLIENT', 'LIST'));
  const line = list.split('\n').find((l) => / name=auth-service /.test(l));
  const addr = / addr=(\S+) /.exec(line ?? '')?.[1];
  assert.ok(addr, 'the auth-service has a named connection');
  return addr;
}

/**
 * The commands the auth-service sent while `work` ran, as `name key-family` (a person's and a
 * service account's ids and the names in `replace` become names, a digest `*`), and the socket
 * reads Redis processed.
 */
async function commandsOf(work: () => Promise<unknown>, replace: Record<string, string>): Promise<{ sent: string[]; reads: number }> {
  const service = await serviceAddress();
  const watcher = f.client.duplicate();
  const monitor = await watcher.monitor();
  const seen: string[][] = [];
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source === service) seen.push(args);
  });
  try {
    const before = await reads();
    await work();
    const total = (await reads()) - before - 1;
    // The end of the work as MONITOR sees it: the service's commands were all heard before this.
    const heard = new Promise<void>((resolve) =>
      monitor.on('monitor', (_t: string, args: string[]) => args[1] === 'end-of-work' && resolve()),
    );
    await f.client.ping('end-of-work');
    await heard;
    const family = (key: string) =>
      key
        .split(':')
        .map(
          (part) =>
            replace[part] ??
            (part.startsWith('user_') ? '<person>' : part.startsWith('bot_') ? '<account>' : part.length >= 40 ? '*' : part),
        )
        .join(':');
    const sent = seen
      .map((args) => {
        const name = args[0]!.toLowerCase();
        return `${name} ${family(name === 'evalsha' || name === 'eval' ? args[3]! : args[1]!)}`;
      })
      // A claim's lease renewal, once a second while the request runs (refresh-replay.ts): a slow
      // machine adds it, the grant does not.
      .filter((c) => c !== 'evalsha svc:oidc:refresh-claim:*');
    return { sent, reads: total };
  } finally {
    monitor.disconnect();
    watcher.disconnect();
  }
}

test('a refresh grant sends 11 commands in 5 round trips', async () => {
  const { token: first, resource } = await mintRefreshToken(f, 'count');
  const refresh = (t: string) => token({ grant_type: 'refresh_token', refresh_token: t, client_id: 'svc-mcp' });
  // The first loads the scripts (EVALSHA answered NOSCRIPT, then EVAL): not what is counted.
  const warm = await refresh(first);
  assert.equal(warm.status, 200, JSON.stringify(warm.body));
  const slug = resource.split('/').at(-1)!;
  let answer: { status: number; body: Record<string, unknown> } | undefined;
  const { sent, reads: roundTrips } = await commandsOf(async () => (answer = await refresh(String(warm.body['refresh_token']))), {
    [slug]: '<project>',
  });
  assert.equal(answer?.status, 200, JSON.stringify(answer?.body));
  assert.deepEqual(sent, [
    // The kept pair, the claim of the rotation and the token's record: one round trip.
    'get svc:oidc:refresh-replay:*',
    'set svc:oidc:refresh-claim:*',
    'hgetall svc:oidc:RefreshToken:*',
    // Its Grant, person and project: one round trip.
    'hgetall svc:oidc:Grant:*',
    'hgetall svc:user:<person>',
    'hgetall svc:project:<project>',
    // The consumption of the presented token, with its announcement.
    'evalsha svc:oidc:RefreshToken:*',
    // The new refresh and access tokens, and both in the grant's set: one round trip.
    'evalsha svc:oidc:RefreshToken:*',
    'evalsha svc:oidc:AccessToken:*',
    'evalsha svc:oidc:grant-keys:*',
    // The pair kept for a repeated refresh, once the tokens landed.
    'set svc:oidc:refresh-replay:*',
  ]);
  assert.ok(roundTrips <= 5, `the refresh grant took ${roundTrips} round trips`);
});

test('a client-credentials grant sends 8 commands in 4 round trips', async () => {
  const { user } = await newProject(f, 'count-cc');
  // A project of its own name, told apart from the workspace's in the commands.
  const slug = `counted-${user.workspace}`;
  await f.accounts.workspaces.createProject({ slug, workspace: user.workspace });
  const { bot } = await f.accounts.bots.create({ workspace: user.workspace, name: 'counted' });
  await f.accounts.bots.grant(bot.id, slug, 'VIEWER');
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256' } as PublicJwk;
  await f.accounts.serviceAccountClients.setKeys(bot.id, { jwks: { keys: [jwk] } });
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const grant = () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: bot.id, sub: bot.id, aud: f.url, iat: now, exp: now + 60, jti: randomUUID() };
    const input = `${b64({ alg: 'ES256', typ: 'JWT', kid: 'k1' })}.${b64(claims)}`;
    const signature = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    return token({
      grant_type: 'client_credentials',
      client_id: bot.id,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: `${input}.${signature}`,
      resource: `${f.config.baseUrl}/mcp/${slug}`,
    });
  };
  const warm = await grant();
  assert.equal(warm.status, 200, JSON.stringify(warm.body));
  let answer: { status: number; body: Record<string, unknown> } | undefined;
  const { sent, reads: roundTrips } = await commandsOf(async () => (answer = await grant()), {
    [slug]: '<project>',
    [user.workspace]: '<workspace>',
  });
  assert.equal(answer?.status, 200, JSON.stringify(answer?.body));
  assert.deepEqual(sent, [
    // The account, its grants, its keys and the project named by `resource`: one round trip.
    'hgetall svc:bot:<account>',
    'hgetall svc:bot:<account>:grants',
    'get svc:bot:<account>:client-keys',
    'hgetall svc:project:<project>',
    // Whether the account is live (its workspace is in its record).
    'sismember svc:ws:<workspace>:live-bots',
    // The claim of the assertion's jti (RFC 7523 §3 item 7), then its window and the token: one round trip.
    'set svc:oidc:replay:*',
    'set svc:oidc:replay:*',
    'evalsha svc:oidc:AccessToken:*',
  ]);
  assert.ok(roundTrips <= 4, `the client-credentials grant took ${roundTrips} round trips`);
});
