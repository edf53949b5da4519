/**
 * The image, built and run as the Deployments run it (docs/operations.md "Image"): scripts/image.sh
 * builds it from the Containerfile (cached layers make a rebuild of an unchanged tree take seconds),
 * then Redis and both services run as containers on a private network with k8s/base's security
 * settings: read-only root with only /tmp writable, every capability dropped, no privilege
 * escalation, uid 1000, ports published on 127.0.0.1 only. svc-admin, run inside the gateway's
 * container as an operator would (`podman exec -i`, the password on standard input), makes an
 * account, workspace, project and key; the key calls a tool, a call without it gets 401. The image
 * is also searched for what the build had and must not keep: the .npmrc, the CA bundle, the pnpm
 * store, the tests.
 * Needs podman, runc and mmdebstrap (scripts/setup.sh --test installs them).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { rootCertificates } from 'node:tls';
import { after, before, test } from 'node:test';
import { freePort, waitFor } from '@svc/testkit';
import { installed, podman, ROOT, run } from './podman.ts';

const IMAGE = process.env['SVC_IMAGE'] || 'localhost/svc:latest';
const REDIS_IMAGE = process.env['SVC_REDIS_IMAGE'] || 'localhost/svc-redis:bookworm';
/** The CA bundle scripts/image.sh lends the build (SVC_BUILD_CA, default Debian's). */
const BUILD_CA = process.env['SVC_BUILD_CA'] || '/etc/ssl/certs/ca-certificates.crt';
/** A cold build makes the Debian and Node base first (minutes on a loaded machine); a warm one takes seconds. */
const BUILD_TIMEOUT_MS = 15 * 60_000;
/** k8s/base: each service's startupProbe allows 30 × 2 s. */
const START_TIMEOUT_MS = 60_000;
/**
 * The securityContext of k8s/base/{auth-service,mcp-gateway}.yaml as podman flags: the root file
 * system read-only and /tmp a tmpfs of the emptyDir's 64 Mi (podman's own tmpfs on /run and
 * /var/tmp turned off, as a pod has none), capabilities all dropped, no privilege escalation,
 * runAsUser/runAsGroup 1000. Redis runs confined too, as the image's own `redis` user.
 */
const CONFINED = [
  '--read-only',
  '--read-only-tmpfs=false',
  '--tmpfs=/tmp:rw,size=64m,mode=1777',
  '--cap-drop=ALL',
  '--security-opt=no-new-privileges',
];
const DEPLOYMENT_SECURITY = [...CONFINED, '--user=1000:1000'];

const name = `svc-smoke-${process.pid}`;
const network = name;
const containers: string[] = [];
let builtLine = '';
const started: Record<string, { port: number; ms: number }> = {};
const secrets = { KEY_PEPPER: randomBytes(24).toString('hex'), COOKIE_KEYS: randomBytes(24).toString('hex') };

async function logs(container: string): Promise<string> {
  const r = await run('podman', ['logs', '--tail', '30', container]);
  return (r.stdout + r.stderr).slice(-3000);
}

/** Starts `service` from the image as its Deployment does; resolves when /readyz answers 200. */
async function startService(service: 'auth-service' | 'mcp-gateway', env: Record<string, string>, containerPort: number, port: number) {
  const container = `${name}-${service}`;
  const begin = performance.now();
  containers.push(container);
  await podman([
    'run',
    '--detach',
    `--name=${container}`,
    `--network=${network}`,
    '--add-host=redis:' + (await redisAddress()),
    ...DEPLOYMENT_SECURITY,
    `--publish=127.0.0.1:${port}:${containerPort}`,
    ...Object.entries({ PORT: String(containerPort), REDIS_URL: 'redis://redis:6379', EMAIL: 'off', ...secrets, ...env }).map(
      ([k, v]) => `--env=${k}=${v}`,
    ),
    IMAGE,
    'node',
    `services/${service}/src/main.ts`,
  ]);
  try {
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status === 200, {
      timeout: START_TIMEOUT_MS,
      interval: 50,
      message: `${service} to answer /readyz 200 on 127.0.0.1:${port}`,
    });
  } catch (err) {
    throw new Error(`${String(err)}\nits log:\n${await logs(container)}`, { cause: err });
  }
  started[service] = { port, ms: Math.round(performance.now() - begin) };
}

let redisIp = '';
async function redisAddress(): Promise<string> {
  if (redisIp) return redisIp;
  const out = await podman(['inspect', `${name}-redis`, '--format', '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}']);
  redisIp = out.trim();
  return redisIp;
}

before(
  async () => {
    for (const tool of ['podman', 'runc', 'mmdebstrap'])
      if (!(await installed(tool)))
        throw new Error(`${tool} is not installed: run ./scripts/setup.sh --test (it installs podman, buildah, runc and mmdebstrap)`);
    const build = await run(`${ROOT}/scripts/image.sh`, ['--redis']);
    assert.equal(build.code, 0, `scripts/image.sh --redis failed:\n${build.stderr.slice(-3000)}`);
    builtLine = build.stderr.split('\n').find((l) => l.startsWith('image: built ')) ?? '';

    await podman(['network', 'create', network]);
    containers.push(`${name}-redis`);
    await podman(['run', '--detach', `--name=${name}-redis`, `--network=${network}`, ...CONFINED, REDIS_IMAGE]);
    await waitFor(async () => (await run('podman', ['exec', `${name}-redis`, 'redis-cli', 'ping'])).stdout.trim() === 'PONG', {
      timeout: START_TIMEOUT_MS,
      interval: 100,
      message: 'the Redis container to answer PING',
    });
  },
  { timeout: BUILD_TIMEOUT_MS },
);

after(async () => {
  if (containers.length) await run('podman', ['rm', '--force', '--time=0', ...containers]);
  await run('podman', ['network', 'rm', '--force', network]);
});

test('the image carries no build-time secret, CA file, pnpm store or tests', async (t) => {
  t.diagnostic(builtLine);
  // The certificates the build's CA bundle adds to Node's own roots (a TLS-intercepting proxy's CA):
  // a distinctive line of each must be in no file of the image.
  const bundle = await readFile(BUILD_CA, 'utf8').catch(() => '');
  const body = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, '');
  const known = new Set(rootCertificates.map(body));
  const extra = (bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).filter((p) => !known.has(body(p)));
  const lines = extra.map((p) => p.split('\n')[4] ?? '').filter((l) => l.length >= 60);
  t.diagnostic(`${extra.length} certificates of ${BUILD_CA} are not among Node's roots; searched for in the image`);

  const scan = await podman(
    [
      'run',
      '--rm',
      '-i',
      '--network=none',
      '--read-only',
      '--user=0:0',
      IMAGE,
      'sh',
      '-c',
      // Everything found is printed; nothing must be. Root, so /root is searched too.
      'find / -xdev \\( -name .npmrc -o -name .pnpm-store -o -name "*.test.ts" -o -path /pnpm -o -path /root/.npm' +
        ' -o -path /root/.cache -o -path /root/.local -o -path /run/svc-build -o -path /app/tests \\) -print 2>/dev/null;' +
        ' ls -d /app/packages/*/test /app/services/*/test 2>/dev/null;' +
        // @simplewebauthn/server ships the public roots of WebAuthn attestation formats (one of them
        // GlobalSign R2, in Debian's bundle but no longer among Node's roots): a library's own, not the build's.
        ' grep -rlsF -f /dev/stdin / --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev --exclude-dir=defaultRootCerts | sed "s/^/CA in: /"; true',
    ],
    lines.join('\n'),
  );
  assert.equal(scan.trim(), '', `found in the image:\n${scan}`);

  const env = JSON.parse(await podman(['image', 'inspect', IMAGE, '--format', '{{json .Config.Env}}'])) as string[];
  assert.deepEqual(
    env.filter((e) => /npm_config|NODE_EXTRA_CA|SSL_CERT|CAFILE|proxy|TOKEN|PASSWORD/i.test(e)),
    [],
    'the image sets no build-time variable',
  );
  assert.ok(env.includes('NODE_ENV=production'), `NODE_ENV=production in ${env.join(' ')}`);
});

test('both services start under the Deployments security settings and answer /readyz', async (t) => {
  const [authPort, gatewayPort] = [await freePort(), await freePort()];
  const urls = { AUTH_URL: `http://127.0.0.1:${authPort}`, BASE_URL: `http://127.0.0.1:${gatewayPort}` };
  await startService('auth-service', urls, 4000, authPort);
  await startService('mcp-gateway', urls, 3000, gatewayPort);
  for (const [service, s] of Object.entries(started)) t.diagnostic(`${service}: /readyz 200 ${s.ms} ms after podman run`);

  for (const service of ['auth-service', 'mcp-gateway']) {
    const container = `${name}-${service}`;
    // PID 1 is node itself (the Containerfile's exec), so its status is the service's.
    const status = await podman(['exec', container, 'cat', '/proc/1/status']);
    assert.match(status, /^Uid:\s+1000\s+1000\s+1000\s+1000$/m, `${service} runs as uid 1000`);
    assert.match(status, /^Gid:\s+1000\s/m, `${service} runs as gid 1000`);
    assert.match(status, /^CapEff:\s+0+$/m, `${service} has no capability`);
    assert.match(status, /^CapBnd:\s+0+$/m, `${service} cannot gain a capability`);
    assert.match(status, /^NoNewPrivs:\s+1$/m, `${service} cannot escalate privileges`);
    const writes = await podman([
      'exec',
      container,
      'sh',
      '-c',
      'for d in /app /tmp /var/tmp /run /home/node; do touch $d/probe 2>/dev/null && echo "$d writable"; done; true',
    ]);
    assert.equal(writes.trim(), '/tmp writable', `${service}: only /tmp is writable`);
    const ports = await podman(['port', container]);
    const published = ports.trim().split('\n');
    assert.equal(published.length, 1, `${service} publishes one port: ${ports}`);
    assert.match(published[0] ?? '', /-> 127\.0\.0\.1:\d+$/, `${service} is published on 127.0.0.1 only`);
    const port = started[service]?.port;
    assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200, `${service} /readyz`);
  }
});

test('svc-admin inside the gateway container makes a key that calls a tool; no key is 401', async () => {
  const gateway = started['mcp-gateway'];
  assert.ok(gateway, 'the gateway started');
  const admin = async (args: string[], input?: string) => {
    const r = await run(
      'podman',
      ['exec', '-i', `${name}-mcp-gateway`, 'node', 'packages/svc-admin/src/main.ts', ...args, '--json'],
      input,
    );
    assert.equal(r.code, 0, `svc-admin ${args.slice(0, 2).join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };
  await admin(['user', 'create', '--email', 'ops@example.com', '--password-stdin'], 'correct horse battery staple\n');
  await admin(['workspace', 'create', '--slug', 'acme', '--owner', 'ops@example.com', '--plan', 'team']);
  await admin(['project', 'create', '--slug', 'smoke', '--workspace', 'acme']);
  const { key } = await admin(['key', 'create', '--project', 'smoke', '--level', 'EDITOR', '--name', 'image smoke test']);
  assert.equal(typeof key, 'string');

  const call = (headers: Record<string, string>) =>
    fetch(`http://127.0.0.1:${gateway.port}/mcp/smoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_recall', arguments: { query: 'image' } } }),
    });
  const res = await call({ 'x-api-key': key as string });
  const body = (await res.json()) as { result?: { structuredContent?: { memories?: unknown[] } }; error?: unknown };
  assert.equal(res.status, 200);
  assert.deepEqual(body.error, undefined, JSON.stringify(body));
  assert.deepEqual(body.result?.structuredContent?.memories, [], 'svc_recall answered from the containers Redis');

  const anonymous = await call({});
  assert.equal(anonymous.status, 401);
  assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer /);
});
