/**
 * svc-admin upstream-signing-key rotate: a new key for the tokens svc forwards to upstream MCP
 * servers (docs/upstream-servers.md "Key rotation"). The key is published in the JWK Set at once
 * and signs from UPSTREAM_LIMITS.signingKeys.publishLeadSeconds later; the key it replaces stays
 * published until the last tokens it signed have expired. Every gateway reads the keys again
 * within UPSTREAM_LIMITS.signingKeys.reloadSeconds, so none needs a restart. The private half is
 * sealed under KEY_PEPPER, as the gateways open it, so the command reads the configuration itself.
 */
import { AccountError, connectRedis, waitReady } from '@svc/accounts';
import { loadConfig } from '@svc/config';
import { rotateSigningKey, RotationRefused } from '@svc/upstreams';
import type { Command } from './command-kit.ts';

const iso = (ms: number) => new Date(ms).toISOString();

export const UPSTREAM_SIGNING_KEY_COMMANDS: Record<string, Command> = {
  'upstream-signing-key rotate': async () => {
    const config = loadConfig();
    const redis = connectRedis(config.redisUrl, {
      cluster: config.redisCluster,
      sentinel: config.redisSentinel,
      name: 'svc-admin-signing-key',
    });
    try {
      await waitReady(redis, 5_000);
      const r = await rotateSigningKey(redis, config.keyPepper, Date.now());
      return {
        kid: r.kid,
        signs_from: iso(r.signsFrom),
        previous_kid: r.replaced?.kid ?? null,
        previous_published_until: r.replaced ? iso(r.replaced.publishedUntil) : null,
      };
    } catch (err) {
      if (err instanceof RotationRefused) throw new AccountError('conflict', err.message);
      throw err;
    } finally {
      redis.disconnect();
    }
  },
};
