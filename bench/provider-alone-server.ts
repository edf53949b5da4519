/**
 * The baseline of `pnpm bench:auth`'s refresh case (docs/benchmarks.md "Authorization server"):
 * oidc-provider alone, the version the auth-service runs, answering the same refresh grant with
 * nothing of ours around it. One public client (`svc-mcp`, no authentication), opaque access tokens
 * for one resource, refresh tokens rotated on every use, and the records kept in a `Map` in this
 * process: no Redis, no Express, no pre- or post-steps, no replay window, no metrics. What the
 * auth-service spends beyond this on the same host in the same run is the price of what it adds
 * (shared storage, the guarantees of docs/security.md "Refresh tokens", the front steps), whatever
 * the host's speed; the bench prints the ratio.
 * With ALONE_STORE=redis the same library keeps its records in Redis instead (REDIS_URL, keys under
 * `bench-alone:`), through the Redis client the auth-service's request paths use and an adapter
 * written the plain way (a hash per record, a set per grant), with none of the auth-service's
 * storage work (no read-ahead, no write-behind, no scripts): what storing the grant in Redis costs
 * the library, so the bench can tell that from what svc adds around it.
 * IPC as bench/auth-server.ts: `cpu` answers process.cpuUsage(), `refresh` seeds `n` families.
 *   env: AUTH_URL (the issuer, whose port it listens on), ALONE_STORE (map, the default, or redis),
 *   REDIS_URL (with ALONE_STORE=redis)
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import Provider, { type Adapter, type AdapterPayload } from 'oidc-provider';
import { connectRedis, waitReady } from '@svc/accounts';

const issuer = process.env['AUTH_URL'] ?? 'http://127.0.0.1:0';
const LIFETIME = 86_400;

/** The records, by model and id; a grant's set of record keys, for revokeByGrantId. */
const records = new Map<string, AdapterPayload>();
const grantKeys = new Map<string, Set<string>>();

class MapAdapter implements Adapter {
  readonly model: string;
  constructor(model: string) {
    this.model = model;
  }
  private key(id: string): string {
    return `${this.model}:${id}`;
  }
  async upsert(id: string, payload: AdapterPayload): Promise<void> {
    const key = this.key(id);
    records.set(key, payload);
    if (payload.grantId) grantKeys.set(payload.grantId, (grantKeys.get(payload.grantId) ?? new Set()).add(key));
  }
  async find(id: string): Promise<AdapterPayload | undefined> {
    return records.get(this.key(id));
  }
  async findByUid(): Promise<undefined> {
    return undefined;
  }
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }
  async consume(id: string): Promise<void> {
    const record = records.get(this.key(id));
    if (record) record.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id: string): Promise<void> {
    records.delete(this.key(id));
  }
  async revokeByGrantId(grantId: string): Promise<void> {
    for (const key of grantKeys.get(grantId) ?? []) records.delete(key);
    grantKeys.delete(grantId);
  }
}

/** The same records in Redis: a hash per record (its payload, then `consumed`), a set of a grant's record keys. */
const redis =
  process.env['ALONE_STORE'] === 'redis' ? connectRedis(process.env['REDIS_URL'] ?? '', { failFast: true, batchWrites: true }) : null;
class RedisAdapter implements Adapter {
  readonly model: string;
  constructor(model: string) {
    this.model = model;
  }
  private key(id: string): string {
    return `bench-alone:${this.model}:${id}`;
  }
  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const key = this.key(id);
    const writes = [redis!.hset(key, 'payload', JSON.stringify(payload)), redis!.expire(key, expiresIn)];
    if (payload.grantId) {
      const grant = `bench-alone:grant:${payload.grantId}`;
      writes.push(redis!.sadd(grant, key), redis!.expire(grant, expiresIn));
    }
    await Promise.all(writes);
  }
  async find(id: string): Promise<AdapterPayload | undefined> {
    const record = await redis!.hgetall(this.key(id));
    if (!record['payload']) return undefined;
    const payload = JSON.parse(record['payload']) as AdapterPayload;
    return record['consumed'] ? { ...payload, consumed: Number(record['consumed']) } : payload;
  }
  async findByUid(): Promise<undefined> {
    return undefined;
  }
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }
  async consume(id: string): Promise<void> {
    await redis!.hset(this.key(id), 'consumed', Math.floor(Date.now() / 1000));
  }
  async destroy(id: string): Promise<void> {
    await redis!.del(this.key(id));
  }
  async revokeByGrantId(grantId: string): Promise<void> {
    const grant = `bench-alone:grant:${grantId}`;
    const keys = await redis!.smembers(grant);
    await redis!.del(grant, ...keys);
  }
}
if (redis) await waitReady(redis);

/** One ES256 signing key, as the auth-service has (the library's development keys would be logged as a warning). */
const signingKey = {
  ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }),
  alg: 'ES256',
  use: 'sig',
  kid: 'bench',
};

const provider = new Provider(issuer, {
  adapter: redis ? RedisAdapter : MapAdapter,
  jwks: { keys: [signingKey] },
  clients: [
    {
      client_id: 'svc-mcp',
      token_endpoint_auth_method: 'none',
      // The library checks the metadata as a whole: a client with no response type is refused.
      grant_types: ['authorization_code', 'refresh_token'],
      redirect_uris: ['http://127.0.0.1/callback'],
      response_types: ['code'],
      id_token_signed_response_alg: 'ES256',
    },
  ],
  routes: { token: '/api/oauth/token' },
  // offline_access enables the refresh_token grant type, as in the auth-service's configuration.
  scopes: ['openid', 'offline_access', 'mcp'],
  issueRefreshToken: async () => true,
  ttl: { AccessToken: LIFETIME, RefreshToken: LIFETIME, Grant: LIFETIME },
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
  rotateRefreshToken: () => true,
  expiresWithSession: async () => false,
  features: {
    devInteractions: { enabled: false },
    resourceIndicators: {
      enabled: true,
      useGrantedResource: async () => true,
      defaultResource: async (_ctx, _client, oneOf) => oneOf,
      getResourceServerInfo: async (_ctx, resource) => ({
        scope: 'mcp',
        audience: resource,
        accessTokenFormat: 'opaque',
        accessTokenTTL: LIFETIME,
      }),
    },
  },
});

type Request = { id: number; op: 'cpu' } | { id: number; op: 'refresh'; n: number; accountId: string; resource: string };

async function answer(msg: Request): Promise<unknown> {
  if (msg.op === 'cpu') return process.cpuUsage();
  const client = await provider.Client.find('svc-mcp');
  if (!client) throw new Error('svc-mcp is configured');
  const tokens: string[] = [];
  for (let i = 0; i < msg.n; i++) {
    const grant = new provider.Grant({ accountId: msg.accountId, clientId: 'svc-mcp' });
    grant.addResourceScope(msg.resource, 'mcp');
    const grantId = await grant.save();
    const token = new provider.RefreshToken({
      client,
      accountId: msg.accountId,
      grantId,
      scope: 'mcp',
      resource: msg.resource,
      gty: 'refresh_token',
    });
    tokens.push(await token.save());
  }
  return tokens;
}

process.on('message', (msg: Request) => {
  answer(msg).then(
    (value) => process.send?.({ id: msg.id, value }),
    (err: unknown) =>
      process.send?.({ id: msg.id, error: `${String(err)} ${(err as { error_description?: string }).error_description ?? ''}` }),
  );
});

const handle = provider.callback();
const server = createServer((req, res) => void handle(req, res));
server.listen(Number(new URL(issuer).port), '127.0.0.1', () => process.send?.({ id: 0 }));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
