/** svc-admin: administers accounts from a shell (docs/contract.md "Operator interface"). */
import { parseArgs } from 'node:util';
import {
  AccountError,
  connectRedis,
  createAccounts,
  NOT_REPLICATED,
  waitReady,
  type Accounts,
  type Redis,
  type ReplicaConfirmRetry,
} from '@svc/accounts';
import { TargetError } from '@svc/audit-stream';
import { ConfigError, loadConfig, type Config } from '@svc/config';
import { createScimDirectory, createScimTokens, createSsoStore, defaultResolveTxt, ssoSettings } from '@svc/sso';
import { createUpstreams } from '@svc/upstreams';
import { auditStream } from './audit-stream.ts';
import { auditVerify } from './audit-verify.ts';
import { UsageError } from './command-kit.ts';
import { COMMANDS } from './commands.ts';
import { createManagement, ManagementError } from '@svc/management';
import { USAGE } from './usage.ts';
import { passwordSource, readPassword } from './password.ts';
import { SSO_COMMANDS } from './sso-commands.ts';
import { runWebhooks } from './webhooks-run.ts';

const STRING_OPTIONS = [
  'email',
  'password',
  'slug',
  'owner',
  'plan',
  'agents',
  'workspace',
  'project',
  'role',
  'level',
  'name',
  'expires-in',
  'overlap',
  'id',
  'team',
  'issuer',
  'client-id',
  'default-role',
  'required',
  'groups',
  'domain',
  'jwks-file',
  'jwks-uri',
  'metadata-file',
  'entity-id',
  'sso-url',
  'certificate-file',
  'email-attribute',
  'groups-attribute',
  'want-response-signed',
  'otlp-endpoint',
  'kind',
  'audience',
  'rule',
];

/**
 * svc-admin's patience with replicas (docs/operations.md "Write durability"). A service answers an
 * unconfirmed write 503 and its client tries again; a command run once has no such client, and on
 * a topology whose replicas are still syncing (just started, a replica just back) its first write
 * would fail. So each write's confirmation is asked for again, pauses doubling from 100 ms to 2 s,
 * about 9 s in all, before the command fails; the write itself is not sent twice.
 */
const CONFIRM_RETRY: ReplicaConfirmRetry = { attempts: 8, firstDelayMs: 100, maxDelayMs: 2_000 };

async function main(argv: string[]): Promise<number> {
  const options = Object.fromEntries(STRING_OPTIONS.map((n) => [n, { type: 'string' as const }]));
  const { values, positionals } = parseArgs({
    args: argv,
    strict: false,
    allowPositionals: true,
    options: {
      ...options,
      json: { type: 'boolean' },
      'password-stdin': { type: 'boolean' },
      'secret-stdin': { type: 'boolean' },
      stdout: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const json = values['json'] === true;
  // `sso domain claim` is three words; every other command two.
  const three = positionals.slice(0, 3).join(' ');
  const name = SSO_COMMANDS[three] ? three : positionals.slice(0, 2).join(' ');
  const fail = (code: string, message: string) => {
    if (json) process.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
    process.stderr.write(`svc-admin: ${message}\n`);
    return 1;
  };
  if (values['help'] || positionals.length === 0) {
    process.stdout.write(`${USAGE}\n`);
    return positionals.length === 0 && !values['help'] ? 1 : 0;
  }
  if (values['password'] !== undefined) {
    // Never used: a password on the command line is visible in `ps` and shell history.
    process.stderr.write(
      'svc-admin: --password on the command line is ignored (visible in ps and shell history); type it at the prompt or pipe it with --password-stdin\n',
    );
    delete values['password'];
  }
  const command = COMMANDS[name];
  const ssoCommand = SSO_COMMANDS[name];
  // Reads a file only: no configuration or Redis (docs/audit.md "Verifying an export").
  if (name === 'audit verify') return auditVerify(argv);
  if (name === 'webhooks run') {
    try {
      return await runWebhooks(loadConfig());
    } catch (err) {
      if (err instanceof ConfigError) return fail('config', err.message);
      throw err;
    }
  }
  const streaming = name === 'audit stream';
  if (!command && !ssoCommand && !streaming) return fail('usage', `unknown command "${name}"\n${USAGE}`);
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) return fail('config', err.message);
    throw err;
  }
  const redis = connectRedis(config.redisUrl, { cluster: config.redisCluster, sentinel: config.redisSentinel, name: 'svc-admin' });
  try {
    await waitReady(redis, 5_000);
    if (streaming) {
      await auditStream(redis, values as Record<string, string | boolean | undefined>);
      return 0;
    }
    const accounts = createAccounts(redis, {
      pepper: config.keyPepper,
      previousPepper: config.previousKeyPepper,
      waitReplicas: config.redisWaitReplicas,
      confirmRetry: CONFIRM_RETRY,
    });
    const io = { password: () => readPassword(passwordSource(values)), management: managementOf(accounts, redis, config) };
    const options = values as Record<string, string | boolean | undefined>;
    const out = ssoCommand
      ? await ssoCommand(
          {
            accounts,
            // The store the auth-service reads, sealing under the same COOKIE_KEYS; no discovery
            // check (svc-admin makes no outbound requests): the sign-in flow reads the provider.
            sso: ssoSettings({
              accounts,
              store: createSsoStore(redis, config.cookieKeys),
              resolveTxt: defaultResolveTxt,
              now: Date.now,
              authUrl: config.authUrl,
            }),
            secret: () => (values['secret-stdin'] === true ? readPassword('stdin') : Promise.resolve(null)),
          },
          options,
        )
      : await command!(accounts, options, io);
    process.stdout.write(json ? `${JSON.stringify(out)}\n` : `${formatHuman(out)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError || err instanceof TargetError) return fail('usage', err.message);
    if (err instanceof AccountError) return fail(err.code, err.message);
    if (err instanceof ManagementError) return fail(err.code, err.message);
    if (err instanceof Error && /not reachable/.test(err.message))
      return fail('redis_unavailable', `cannot reach Redis at ${config.redisUrl}`);
    if (err instanceof Error && err.message.startsWith(NOT_REPLICATED))
      return fail(
        'not_replicated',
        `${err.message}, asked ${CONFIRM_RETRY.attempts} times: the write may be on the primary alone; check the replicas (docs/operations.md "Write durability")`,
      );
    throw err;
  } finally {
    redis.disconnect();
  }
}

/**
 * The management layer of the commands the API shares. With the gateway's upstream store, signing
 * key and address guard: `upstreams refresh` speaks to the server as a gateway does, so it reads
 * BASE_URL (the tokens' issuer) and UPSTREAM_ALLOWED_PRIVATE.
 */
function managementOf(accounts: Accounts, redis: Redis, config: Config) {
  const upstreams = createUpstreams({
    redis,
    pepper: config.keyPepper,
    issuer: config.baseUrl,
    allowedPrivate: config.upstreamAllowedPrivate,
  });
  // SCIM's tokens (docs/auth-service.md "SCIM provisioning"): the tenant URL is the auth-service's, AUTH_URL.
  const scim = { tokens: createScimTokens(redis, config.keyPepper), directory: createScimDirectory(redis) };
  return createManagement(accounts, { redis, upstreams, scim, authUrl: config.authUrl });
}

function formatHuman(out: Record<string, unknown>): string {
  return Object.entries(out)
    .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v, null, 2) : String(v)}`)
    .join('\n');
}

process.exitCode = await main(process.argv.slice(2));
