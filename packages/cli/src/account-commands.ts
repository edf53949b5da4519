/**
 * The account commands of `svc` (docs/cli.md "svc"): sign in with the device flow (a personal key
 * for every project you can access), print the stored key, sign out, see who you are, list the
 * projects.
 */
import { displayPrefix } from '@svc/credentials';
import { offerToOpen, type BrowserOffer } from './browser.ts';
import { callerOf, type Command } from './command.ts';
import { projectsOf } from './default-project.ts';
import { deviceFlow, type DeviceCode } from './device-flow.ts';
import { CliError, EXIT } from './errors.ts';
import { hostsOf } from './hosts.ts';
import { refusal, requestJson } from './http.ts';
import { KEY_VARIABLE } from './mcp-config.ts';
import { credentialsFile, readStoredKey, removeStoredKey, writeStoredKey } from './store.ts';
import { columns } from './table.ts';
import { waiting } from './ui.ts';
import { VERSION } from './version.ts';

const days = (ms: number) => Math.floor(ms / 86_400_000);

export const ACCOUNT_COMMANDS: Record<string, Command> = {
  login: {
    summary: 'sign in in the browser and store a personal key (30 days, every project you can access)',
    usage: 'svc login [--server URL] [--auth-server URL] [--json]',
    options: {},
    async run(io, v) {
      const hosts = await hostsOf({ server: v['server'] as string, authServer: v['auth-server'] as string }, io.env);
      if (io.env[KEY_VARIABLE]) io.err(`Note: ${KEY_VARIABLE} is set; commands use it before the key stored by this login.`);
      const offers: BrowserOffer[] = [];
      const token = await deviceFlow({
        authUrl: hosts.authUrl,
        clientId: 'svc-cli',
        pollRequest: { client_version: VERSION },
        show: (code: DeviceCode) => {
          const offer = offerToOpen(code.verification_uri, { env: io.env, onNote: io.err });
          offers.push(offer);
          io.err(
            [
              '',
              `  Open   ${code.verification_uri}`,
              `  Type   ${code.user_code}`,
              '',
              `The code is valid for ${Math.round(code.expires_in / 60)} minutes. Type it yourself: the page does not fill it in.`,
              ...(offer.prompt ? [offer.prompt] : []),
              '',
            ].join('\n'),
          );
        },
        progress: waiting(),
      }).finally(() => offers.forEach((o) => o.close()));
      const key = String(token['access_token'] ?? '');
      const user = token['user'] as { id: string; email: string } | undefined;
      if (!key.startsWith('svc-user-') || !user) throw new CliError('The server answered without a personal key.', EXIT.failed);
      const file = await writeStoredKey(io.env, {
        version: 1,
        key,
        expires_at: String(token['expires_at']),
        user: { id: user.id, email: user.email },
        base_url: typeof token['server_url'] === 'string' ? token['server_url'] : hosts.baseUrl,
        auth_url: hosts.authUrl,
        saved_at: new Date().toISOString(),
      });
      const summary = { user: user.email, key_prefix: displayPrefix(key), expires_at: token['expires_at'], credentials_file: file };
      io.result(summary, [
        `Signed in as ${user.email}.`,
        `Personal key ${summary.key_prefix} saved to ${file} (mode 0600); it expires ${String(token['expires_at'])}.`,
        'Your previous svc login key, if any, was revoked.',
      ]);
    },
  },

  auth: {
    summary: 'print the key stored by "svc login", for another tool (svc auth token)',
    usage: 'svc auth token [--json]',
    details: `  token               prints the stored personal key alone on stdout, e.g.
                      export ${KEY_VARIABLE}=$(svc auth token)
                      It is the one command that prints a key in full.`,
    options: {},
    subcommands: ['token'],
    async run(io, _v, positionals) {
      if (positionals[0] !== 'token' || positionals.length > 1)
        throw new CliError('Which auth command? The one there is: svc auth token.', EXIT.usage, 'Usage: svc auth token [--json]');
      const stored = await readStoredKey(io.env);
      if (!stored) throw new CliError('Not signed in: there is no stored key.', EXIT.auth, 'Run "svc login" first.');
      if (Date.parse(stored.expires_at) <= Date.now())
        throw new CliError(`The stored key expired on ${stored.expires_at}.`, EXIT.auth, 'Run "svc login" for a new one.');
      // A key printed on purpose: the one place the redactor is bypassed (docs/cli.md "svc auth token").
      io.secret(
        io.json ? JSON.stringify({ key: stored.key, expires_at: stored.expires_at, user: stored.user.email }, null, 2) : stored.key,
      );
    },
  },

  logout: {
    summary: 'revoke the stored key on the server and delete it',
    usage: 'svc logout [--json]',
    options: {},
    async run(io) {
      const file = credentialsFile(io.env);
      let stored = null;
      try {
        stored = await readStoredKey(io.env);
      } catch (err) {
        // A corrupt file is removed all the same: that is what logout is for.
        if (!(err instanceof CliError)) throw err;
      }
      let revoked: 'revoked' | 'already invalid' | 'not reached' | 'none' = 'none';
      if (stored) {
        try {
          const res = await requestJson(`${stored.base_url}/api/v1/me/key`, { method: 'DELETE', headers: { 'X-API-Key': stored.key } });
          revoked = res.status === 200 ? 'revoked' : res.status === 401 ? 'already invalid' : 'not reached';
        } catch (err) {
          if (!(err instanceof CliError)) throw err;
          revoked = 'not reached';
        }
      }
      const removed = await removeStoredKey(io.env);
      const lines = !removed
        ? ['Not signed in: there was no stored key.']
        : [
            revoked === 'revoked'
              ? `Key ${displayPrefix(stored!.key)} revoked on the server.`
              : revoked === 'already invalid'
                ? 'The server no longer accepted the stored key.'
                : revoked === 'not reached'
                  ? `Could not reach the server to revoke the key; it stays valid until ${stored!.expires_at}.`
                  : '',
            `Deleted ${file}.`,
          ].filter(Boolean);
      io.result({ removed, revoked, credentials_file: file }, lines);
    },
  },

  whoami: {
    summary: 'who the current key belongs to, and when it expires',
    usage: 'svc whoami [--json]',
    options: {},
    async run(io, v) {
      const { cred, base } = await callerOf(io, v);
      const res = await requestJson(`${base}/api/v1/me`, { headers: { 'X-API-Key': cred.key } });
      if (res.status !== 200) throw refusal(res, 'whoami');
      const me = res.body as {
        key: { kind: string; name: string; prefix: string; expires_at: string | null };
        user: { email: string } | null;
        workspace: string;
        plan: string;
      };
      const left = me.key.expires_at ? days(Date.parse(me.key.expires_at) - Date.now()) : null;
      io.result({ ...me, days_left: left, source: cred.source }, [
        me.user ? `Signed in as ${me.user.email}` : `Key of workspace ${me.workspace}`,
        `Key:       ${me.key.prefix} (${me.key.kind}, "${me.key.name}") from ${cred.source}`,
        `Expires:   ${me.key.expires_at ? `${me.key.expires_at} (${left} days left)` : 'never'}`,
        `Workspace: ${me.workspace} (plan ${me.plan})`,
      ]);
    },
  },

  projects: {
    summary: 'the projects the current key can reach, with its role there',
    usage: 'svc projects [--json]',
    options: {},
    async run(io, v) {
      const projects = await projectsOf(await callerOf(io, v));
      io.result(
        { projects },
        projects.length
          ? columns(projects, [
              ['slug', 'PROJECT'],
              ['role', 'ROLE'],
              ['workspace', 'WORKSPACE'],
            ])
          : ['No projects.'],
      );
    },
  },
};
