/**
 * svc: sign in with the device flow (a personal key for every project you can access), see who
 * you are, list projects, call a tool, print MCP client configuration. docs/cli.md describes it.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { displayPrefix } from '@svc/credentials';
import { offerToOpen, type BrowserOffer } from './browser.ts';
import { auditCommand, keysCommand, membersCommand, requestsCommand, serviceAccountsCommand, usageCommand } from './manage.ts';
import { deviceFlow, type DeviceCode } from './device-flow.ts';
import { CliError, EXIT } from './errors.ts';
import { baseUrlOf, hostsOf, serverHelp } from './hosts.ts';
import { refusal, requestJson } from './http.ts';
import { SURFACES, isSurface, type Surface } from '@svc/policy';
import { KEY_VARIABLE, claudeAddCommand, cursorInstallLink, mcpClientConfigs, oauthSetup } from './mcp-config.ts';
import { requestAccessCommand } from './request-access.ts';
import { credentialOf, credentialsFile, readStoredKey, removeStoredKey, writeStoredKey } from './store.ts';
import { waiting } from './ui.ts';
import { VERSION } from './version.ts';
import { run, type Io } from './run.ts';
import { toolArguments } from './tool-args.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

const GLOBAL: Options = {
  server: { type: 'string' },
  'auth-server': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
};

interface Command {
  summary: string;
  usage: string;
  /** Lines describing the command's own options, for --help (given the environment, to name real URLs). */
  details?: string | ((env: NodeJS.ProcessEnv) => string);
  options: Options;
  run(io: Io, values: Record<string, unknown>, positionals: string[]): Promise<void>;
}

const days = (ms: number) => Math.floor(ms / 86_400_000);

const COMMANDS: Record<string, Command> = {
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
      const { cred, base } = await callerOf(io, v);
      const res = await requestJson(`${base}/api/v1/projects`, { headers: { 'X-API-Key': cred.key } });
      if (res.status !== 200) throw refusal(res, 'projects');
      const projects = (res.body['projects'] ?? []) as { slug: string; workspace: string; role: string }[];
      const width = Math.max(7, ...projects.map((p) => p.slug.length));
      io.result(
        { projects },
        projects.length
          ? [
              `${'PROJECT'.padEnd(width)}  ROLE     WORKSPACE`,
              ...projects.map((p) => `${p.slug.padEnd(width)}  ${p.role.padEnd(7)}  ${p.workspace}`),
            ]
          : ['No projects.'],
      );
    },
  },

  call: {
    summary: 'call one tool through the gateway and print its result',
    usage:
      'svc call <tool> --project <slug> [--arg name=value ...] [--args JSON] [--rate-limit] [--json]\n       svc call <tool> --team <team_slug> ...',
    details: (env) => `  --project SLUG      the project (POST ${baseUrlOf({}, env)}/api/v1/projects/SLUG/tools/<tool>)
  --team SLUG         a team endpoint instead (service-account keys; svc_multi_project_query)
  --arg NAME=VALUE    one argument; VALUE is taken as JSON when it parses (5, true, {"a":1}), else as text
  --args JSON         all arguments as one JSON object (--arg values are applied on top)
  --rate-limit        also print the rate-limit headers (stderr; "rate_limit" with --json)
  --surface NAME      the connection surface: ${SURFACES.join(', ')} (default hosted; X-Svc-Surface)
Exit codes: 0 ok, 1 refused or the tool reported an error, 2 usage, 3 credential, 4 unreachable.`,
    options: {
      project: { type: 'string' },
      team: { type: 'string' },
      arg: { type: 'string', multiple: true },
      args: { type: 'string' },
      'rate-limit': { type: 'boolean', default: false },
      surface: { type: 'string' },
    },
    async run(io, v, positionals) {
      const tool = positionals[0];
      if (!tool) throw new CliError('Which tool? Give its name, e.g. svc call svc_help --project my-project.', EXIT.usage);
      const project = v['project'] as string | undefined;
      const team = v['team'] as string | undefined;
      if (!project === !team) throw new CliError('Give exactly one of --project <slug> or --team <team_slug>.', EXIT.usage);
      const args = toolArguments(v['args'] as string | undefined, (v['arg'] as string[] | undefined) ?? []);
      const surface = surfaceOf(v);
      const { cred, base } = await callerOf(io, v);
      const path = project ? `projects/${encodeURIComponent(project)}` : `teams/${encodeURIComponent(team!)}`;
      const res = await requestJson(`${base}/api/v1/${path}/tools/${encodeURIComponent(tool)}`, {
        headers: { 'X-API-Key': cred.key, ...(surface ? { 'X-Svc-Surface': surface } : {}) },
        body: args,
      });
      const rateLimit = v['rate-limit'] ? rateLimitOf(res.headers) : undefined;
      if (rateLimit && !io.json)
        io.err(
          Object.entries(rateLimit)
            .map(([k, val]) => `${k}: ${val}`)
            .join('\n'),
        );
      if (res.status !== 200) throw refusal(res, tool);
      const result = res.body as { content?: { type: string; text?: string }[]; isError?: boolean };
      const text = (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text ?? '');
      io.result(rateLimit ? { result, rate_limit: rateLimit } : { result }, text);
      if (result.isError) io.fail(EXIT.failed);
    },
  },

  keys: {
    summary: "a project's API keys: list, create, revoke, roll (with an overlap), disable and enable, note, IP allow-list",
    usage:
      'svc keys list|create|revoke <id>|roll <id>|limit <id> <n|none>|disable <id>|enable <id>|note <id> <text>|allow-ips <id> <cidr...|anywhere> --project <slug> [--status S] [--search TEXT] [--name N] [--level L] [--expires 30d] [--rate-limit N] [--note TEXT] [--allow-ip CIDR]... [--overlap 24h] [--json]',
    details: `  --project SLUG      the project
  --status STATUS     list: active, expiring, expired, revoked, disabled or all (default: all but revoked)
  --search TEXT       list: only keys whose name, prefix or note holds TEXT
  --name NAME         create: the key's name
  --level LEVEL       create: VIEWER (default), EDITOR or ADMIN (up to your own role)
  --expires DURATION  create: 7d, 30d, 90d (default), 365d, 12h or never
  --rate-limit N      create: the key's own requests per minute, below the plan's (default: the plan's)
  --note TEXT         create: a note about the key (at most 500 characters)
  --allow-ip CIDR     create: an address or CIDR block the key may be used from (repeat, or comma-separated)
  --overlap DURATION  roll: how long the old key keeps working (default 24h; 0m stops it now)
limit <id> <n|none> sets or lifts a key's own requests per minute, so one CI key cannot starve the rest.
disable <id> stops a key at every gateway within a second until enable <id>; revoke is for good.
allow-ips <id> <cidr...> accepts the key only from those addresses; anywhere lifts the list.
A new key is printed once, alone on stdout; the rest goes to stderr.`,
    options: {
      project: { type: 'string' },
      name: { type: 'string' },
      level: { type: 'string' },
      expires: { type: 'string' },
      'rate-limit': { type: 'string' },
      overlap: { type: 'string' },
      status: { type: 'string' },
      search: { type: 'string' },
      note: { type: 'string' },
      'allow-ip': { type: 'string', multiple: true },
    },
    async run(io, v, positionals) {
      await keysCommand(io, await callerOf(io, v), v, positionals);
    },
  },

  requests: {
    summary: "a project's access requests: list, approve (at a level), deny; or your own with their status",
    usage: 'svc requests list|approve <id>|deny <id> --project <slug> [--level L] [--json] | svc requests mine [--json]',
    details: `  --project SLUG      the project
  --level LEVEL       approve: the level to grant (default VIEWER)
mine lists the requests you made, pending or decided, with the level granted.`,
    options: { project: { type: 'string' }, level: { type: 'string' } },
    async run(io, v, positionals) {
      await requestsCommand(io, await callerOf(io, v), v, positionals);
    },
  },

  'request-access': {
    summary: "ask a project's admins for a level, with a reason",
    usage: 'svc request-access --project <slug> --level VIEWER|EDITOR|ADMIN --reason "..." [--json]',
    details: `  --project SLUG      the project
  --level LEVEL       the level you need: VIEWER, EDITOR or ADMIN
  --reason TEXT       why you need it; the admins read it (at most 1000 characters)
Asking again while a request is pending updates it. Follow it with svc requests mine.`,
    options: { project: { type: 'string' }, level: { type: 'string' }, reason: { type: 'string' } },
    async run(io, v) {
      await requestAccessCommand(io, await callerOf(io, v), v);
    },
  },

  members: {
    summary: "a project's members: list, add or set a role, remove; pending invitations: cancel",
    usage: 'svc members list|add <email>|set <email>|remove <user-id>|cancel <invitation-id> --project <slug> [--role R] [--json]',
    details: `  --project SLUG      the project
  --role ROLE         add, set: VIEWER, EDITOR or ADMIN

An address without a confirmed svc account is not added: it is mailed an invitation (7 days),
listed by list until its owner accepts it or you cancel it.`,
    options: { project: { type: 'string' }, role: { type: 'string' } },
    async run(io, v, positionals) {
      await membersCommand(io, await callerOf(io, v), v, positionals);
    },
  },

  'service-accounts': {
    summary: "a workspace's service accounts (keys for CI and agents): list, create, grant, rotate, revoke; OAuth client keys",
    usage:
      'svc service-accounts list|create|grant <id>|rotate <id>|revoke <id>|keys <id>|set-keys <id>|remove-keys <id> [--workspace W] [--name N] [--project P --level L] [--overlap 24h] [--jwks-file F | --jwks-uri U] [--json]',
    details: `  --workspace W       the workspace (default: the current key's)
  --name NAME         create: the service account's name
  --project SLUG      grant: the project
  --level LEVEL       grant: VIEWER (default), EDITOR or ADMIN
  --overlap DURATION  rotate: how long the old key keeps working (default 24h; 0m stops it now)
  --jwks-file FILE    set-keys: a public JWK Set (JSON) its OAuth client signs private_key_jwt assertions with
  --jwks-uri URL      set-keys: or an https URL serving that JWK Set
keys shows the OAuth client (client id, token endpoint, keys); remove-keys stops it authenticating.
A new key is printed once, alone on stdout; the rest goes to stderr. Only the workspace's owner manages these.
A revoked service account stays revoked: rotate refuses it; create a new one instead.`,
    options: {
      workspace: { type: 'string' },
      name: { type: 'string' },
      project: { type: 'string' },
      level: { type: 'string' },
      overlap: { type: 'string' },
      'jwks-file': { type: 'string' },
      'jwks-uri': { type: 'string' },
    },
    async run(io, v, positionals) {
      await serviceAccountsCommand(io, await callerOf(io, v), v, positionals);
    },
  },

  usage: {
    summary: "a workspace's requests this minute and this month, per key and per tool, and per day",
    usage: 'svc usage [--workspace W] [--days N] [--json]',
    details: `  --workspace W       the workspace (default: the current key's)
  --days N            days of history, today included: 1 to 30 (default 30; --json has them per key and per tool)`,
    options: { workspace: { type: 'string' }, days: { type: 'string' } },
    async run(io, v) {
      await usageCommand(io, await callerOf(io, v), v);
    },
  },

  audit: {
    summary: "a workspace's audit log, newest first",
    usage: 'svc audit [--workspace W] [--action A] [--actor EMAIL] [--from DATE] [--to DATE] [--limit N] [--cursor C] [--json]',
    details: `  --workspace W       the workspace (default: the current key's)
  --action ACTION     only this action, e.g. key.revoked
  --actor EMAIL       only what this person (or key:<prefix>) did
  --from DATE         only entries from this day (YYYY-MM-DD, UTC) or time (RFC 3339)
  --to DATE           only entries up to the end of this day, or this time
  --limit N           entries per page (default 50)
  --cursor C          continue where the last page ended`,
    options: {
      workspace: { type: 'string' },
      action: { type: 'string' },
      actor: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
    },
    async run(io, v) {
      await auditCommand(io, await callerOf(io, v), v);
    },
  },

  'mcp-config': {
    summary: 'print MCP client setup for a project: sign in with OAuth (no key), or a key from $SVC_API_KEY',
    usage: 'svc mcp-config --project <slug> [--client claude|cursor|vscode] [--surface NAME] [--json]',
    details: `  --project SLUG      the project whose MCP endpoint to configure
  --client NAME       only this client's snippet (claude, cursor, vscode); default all
  --surface NAME      the connection surface the client asks for: ${SURFACES.join(', ')} (default hosted)`,
    options: { project: { type: 'string' }, client: { type: 'string' }, surface: { type: 'string' } },
    async run(io, v) {
      const slug = v['project'] as string | undefined;
      if (!slug) throw new CliError('Which project? Give --project <slug>.', EXIT.usage, 'Run "svc projects" for the ones you can reach.');
      const surface = surfaceOf(v);
      const endpoint = `${baseUrlOf({ server: v['server'] as string }, io.env)}/mcp/${encodeURIComponent(slug)}`;
      let configs = mcpClientConfigs(endpoint, slug, surface);
      if (v['client']) {
        configs = configs.filter((c) => c.name === v['client']);
        if (!configs.length) throw new CliError(`Unknown client "${String(v['client'])}": use claude, cursor or vscode.`, EXIT.usage);
      }
      const key = await keySource(io);
      const oauth = oauthSetup(endpoint, slug, surface);
      const claude = claudeAddCommand(endpoint, slug, surface);
      const cursorLink = cursorInstallLink(endpoint, slug, surface);
      const extra = (name: string) =>
        name === 'claude'
          ? ['Run in the project folder:', claude, 'or put this in .mcp.json:']
          : name === 'cursor'
            ? ['Open this link to install it in Cursor:', cursorLink, 'or put this in .cursor/mcp.json:']
            : [];
      io.result(
        {
          endpoint,
          oauth,
          key_variable: KEY_VARIABLE,
          key_source: key.source,
          claude_add_command: claude,
          cursor_install_link: cursorLink,
          clients: Object.fromEntries(configs.map((c) => [c.name, { file: c.file, config: c.config }])),
        },
        [
          `MCP endpoint: ${endpoint} (Streamable HTTP).`,
          '',
          '## With OAuth: no key at all. The client finds the sign-in server from the endpoint and opens your browser.',
          `Claude Code:  ${oauth.claude}`,
          `VS Code:      ${oauth.vscode}`,
          `Cursor:       open ${oauth.cursor}`,
          'Any other client, as JSON:',
          JSON.stringify(oauth.json, null, 2),
          '',
          `## With a key (CI, scripts, clients without OAuth): each client reads it from $${KEY_VARIABLE} when it starts; the key never goes into these files.`,
          `$${KEY_VARIABLE}: ${key.line}`,
          ...configs.flatMap((c) => ['', `# ${c.title}`, ...extra(c.name), JSON.stringify(c.config, null, 2)]),
        ],
      );
    },
  },
};

/** The key to present and the gateway to present it to: a stored key goes back to the server it came from, unless told otherwise. */
async function callerOf(io: Io, v: Record<string, unknown>) {
  const cred = await credentialOf(io.env);
  const told = v['server'] !== undefined || io.env['SVC_BASE_URL'] !== undefined;
  const base = cred.stored && !told ? cred.stored.base_url : baseUrlOf({ server: v['server'] as string | undefined }, io.env);
  return { cred, base };
}

/** Where $SVC_API_KEY would come from, said as a newcomer needs it (docs/cli.md "svc mcp-config"). */
async function keySource(io: Io): Promise<{ source: 'environment' | 'svc login' | 'none'; line: string }> {
  const fromEnv = io.env[KEY_VARIABLE];
  if (fromEnv) return { source: 'environment', line: `set in this shell (${displayPrefix(fromEnv)}).` };
  const stored = await readStoredKey(io.env).catch(() => null);
  if (stored)
    return {
      source: 'svc login',
      line: `not set in this shell. Your "svc login" key can be used: export ${KEY_VARIABLE}=$(svc auth token)`,
    };
  return {
    source: 'none',
    line: `not set, and you are not signed in. Run "svc login", then export ${KEY_VARIABLE}=$(svc auth token); or use a project key (create-svc writes one to .env).`,
  };
}

function surfaceOf(v: Record<string, unknown>): Surface | undefined {
  const surface = v['surface'] as string | undefined;
  if (surface === undefined) return undefined;
  if (!isSurface(surface)) throw new CliError(`Unknown surface "${surface}": use ${SURFACES.join(', ')}.`, EXIT.usage);
  return surface;
}

function rateLimitOf(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (name.startsWith('x-ratelimit-') || name.startsWith('ratelimit') || name === 'retry-after') out[name] = value;
  });
  return out;
}

function details(command: Command, env: NodeJS.ProcessEnv): string {
  const text = typeof command.details === 'function' ? command.details(env) : command.details;
  return text ? `${text}\n` : '';
}

function mainHelp(env: NodeJS.ProcessEnv): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return [
    `svc ${VERSION}: the command-line client of svc`,
    '',
    'Usage: svc <command> [options]',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    'Options of every command:',
    serverHelp(env),
    '',
    `Credentials: $${KEY_VARIABLE} first, then the key stored by "svc login" (in $SVC_CONFIG_DIR,`,
    '$XDG_CONFIG_HOME/svc or ~/.config/svc). "svc <command> --help" describes one command.',
  ].join('\n');
}

await run(async (io, argv) => {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') return io.out(mainHelp(io.env));
  if (name === '--version' || name === 'version') return io.out(VERSION);
  const command = COMMANDS[name];
  if (!command) throw new CliError(`Unknown command "${name}".`, EXIT.usage, 'Run "svc --help" for the list.');
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: { ...GLOBAL, ...command.options }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new CliError((err as Error).message, EXIT.usage, `Usage: ${command.usage}`);
  }
  if (parsed.values['help']) {
    return io.out(`${command.summary}\n\nUsage: ${command.usage}\n\nOptions:\n${details(command, io.env)}${serverHelp(io.env)}`);
  }
  io.json = parsed.values['json'] === true;
  await command.run(io, parsed.values, parsed.positionals);
});
