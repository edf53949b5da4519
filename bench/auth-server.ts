/**
 * The auth-service as `pnpm bench:auth` runs it: a child process started exactly as main.ts starts
 * it (config from the environment, startAuthService), plus an IPC channel to its parent that
 * answers the process's own CPU time (process.cpuUsage) and seeds records through the provider's
 * models, the way the provider itself writes them (docs/benchmarks.md "Authorization server"):
 * - `refresh`: a Grant and a refresh token of svc-mcp per family (what a device approval leaves);
 * - `codes`: a Grant and an authorization code with a PKCE S256 challenge per code (what the
 *   consent page's approval leaves before the redirect).
 * Seeding happens between measurements, never inside one.
 */
import { loadConfig } from '@svc/config';
import { startAuthService } from '../services/auth-service/src/server.ts';
import { DEVICE_GRANT } from '../services/auth-service/src/oauth/clients.ts';

export type AuthServerRequest =
  | { id: number; op: 'cpu' }
  | { id: number; op: 'refresh'; n: number; accountId: string; resource: string }
  | { id: number; op: 'codes'; n: number; accountId: string; resource: string; clientId: string; redirectUri: string; challenge: string };

const config = loadConfig(process.env);
const service = await startAuthService({ config });
const p = service.provider;

async function grantFor(accountId: string, clientId: string, resource: string): Promise<string> {
  const grant = new p.Grant({ accountId, clientId });
  grant.addResourceScope(resource, 'mcp');
  return grant.save();
}

async function answer(msg: AuthServerRequest): Promise<unknown> {
  switch (msg.op) {
    case 'cpu':
      return process.cpuUsage();
    case 'refresh': {
      const client = await p.Client.find('svc-mcp');
      if (!client) throw new Error('svc-mcp is a static client');
      const tokens: string[] = [];
      for (let i = 0; i < msg.n; i++) {
        const grantId = await grantFor(msg.accountId, 'svc-mcp', msg.resource);
        const rt = new p.RefreshToken({
          client,
          accountId: msg.accountId,
          grantId,
          gty: DEVICE_GRANT,
          scope: 'mcp',
          resource: msg.resource,
        });
        tokens.push(await rt.save());
      }
      return tokens;
    }
    case 'codes': {
      const client = await p.Client.find(msg.clientId);
      if (!client) throw new Error(`${msg.clientId} is not registered`);
      const codes: string[] = [];
      for (let i = 0; i < msg.n; i++) {
        const grantId = await grantFor(msg.accountId, msg.clientId, msg.resource);
        const code = new p.AuthorizationCode({
          client,
          accountId: msg.accountId,
          grantId,
          redirectUri: msg.redirectUri,
          scope: 'mcp',
          resource: msg.resource,
          codeChallenge: msg.challenge,
          codeChallengeMethod: 'S256',
          gty: 'authorization_code',
        });
        codes.push(await code.save());
      }
      return codes;
    }
  }
}

process.on('message', (msg: AuthServerRequest) => {
  answer(msg).then(
    (value) => process.send?.({ id: msg.id, value }),
    (err: unknown) => process.send?.({ id: msg.id, error: String(err) }),
  );
});
process.once('SIGTERM', () => {
  void service.close().then(() => process.exit(0));
});
process.send?.({ id: 0, value: 'ready' });
