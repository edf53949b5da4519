/**
 * The baseline of `pnpm bench:auth`'s refresh case (docs/benchmarks.md "Authorization server"):
 * oidc-provider alone, the version the auth-service runs, answering the same refresh grant with
 * nothing of ours around it. One public client (`svc-mcp`, no authentication), opaque access tokens
 * for one resource, refresh tokens rotated on every use, and the records kept in a `Map` in this
 * process: no Redis, no Express, no pre- or post-steps, no replay window, no metrics. What the
 * auth-service spends beyond this on the same host in the same run is the price of what it adds
 * (shared storage, the guarantees of docs/security.md "Refresh tokens", the front steps), whatever
 * the host's speed; the bench prints the ratio.
 * IPC as bench/auth-server.ts: `cpu` answers process.cpuUsage(), `refresh` seeds `n` families.
 *   env: AUTH_URL (the issuer, whose port it listens on)
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import Provider, { type Adapter, type AdapterPayload } from 'oidc-provider';

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

/** One ES256 signing key, as the auth-service has (the library's development keys would be logged as a warning). */
const signingKey = {
  ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }),
  alg: 'ES256',
  use: 'sig',
  kid: 'bench',
};

const provider = new Provider(issuer, {
  adapter: MapAdapter,
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
