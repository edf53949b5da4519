/** The management commands of `svc` (docs/cli.md "Managing a project"): how each is called and described. */
import type { Command } from './command.ts';
import { callerOf } from './command.ts';
import { membersCommand, requestsCommand } from './manage.ts';
import { KEY_SUBCOMMANDS, keysCommand } from './manage-keys.ts';
import { auditCommand, serviceAccountsCommand, usageCommand } from './manage-workspace.ts';
import { webhooksCommand } from './manage-webhooks.ts';
import { workloadIssuersCommand } from './manage-workload-issuers.ts';
import { scimCommand } from './manage-scim.ts';
import { requestAccessCommand } from './request-access.ts';

export const MANAGE_COMMANDS: Record<string, Command> = {
  keys: {
    summary: "a project's API keys: list, create, revoke, roll (with an overlap), disable and enable, note, IP allow-list",
    usage:
      'svc keys list|create|revoke <id>|roll <id>|limit <id> <n|none>|disable <id>|enable <id>|note <id> <text>|allow-ips <id> <cidr...|anywhere> [--project <slug>] [--status S] [--search TEXT] [--name N] [--level L] [--expires 30d] [--rate-limit N] [--note TEXT] [--allow-ip CIDR]... [--overlap 24h] [--json]',
    details: `  --project SLUG      the project (default: the one "svc use" chose, or your only one)
  --status STATUS     list: active, expiring, expired, revoked, disabled or all (default: all but revoked)
  --search TEXT       list: only keys whose name, prefix or note holds TEXT
  --name NAME         create: the key's name
  --level LEVEL       create: VIEWER (default), EDITOR or ADMIN, in any case (up to your own role)
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
    subcommands: KEY_SUBCOMMANDS,
    async run(io, v, positionals) {
      await keysCommand(io, await callerOf(io, v), v, positionals);
    },
  },

  requests: {
    summary: "a project's access requests: list, approve (at a level), deny; or your own with their status",
    usage:
      'svc requests list|approve <id>|deny <id> [--project <slug>] [--level L] [--cursor C] [--all] [--json] | svc requests mine [--cursor C] [--all] [--json]',
    details: `  --project SLUG      the project (default: the one "svc use" chose, or your only one)
  --level LEVEL       approve: the level to grant (default VIEWER; any case)
  --cursor C          list, mine: the page after the one that printed C
  --all               list, mine: every page from there on (at most 20 pages of 100)
Lists are newest asked first, a page at a time. mine lists the requests you made, pending or decided, with the level granted.`,
    options: { project: { type: 'string' }, level: { type: 'string' }, cursor: { type: 'string' }, all: { type: 'boolean' } },
    subcommands: ['list', 'approve', 'deny', 'mine'],
    async run(io, v, positionals) {
      await requestsCommand(io, await callerOf(io, v), v, positionals);
    },
  },

  'request-access': {
    summary: "ask a project's admins for a level, with a reason",
    usage: 'svc request-access --project <slug> --level VIEWER|EDITOR|ADMIN --reason "..." [--json]',
    details: `  --project SLUG      the project
  --level LEVEL       the level you need: VIEWER, EDITOR or ADMIN (any case)
  --reason TEXT       why you need it; the admins read it (at most 1000 characters)
Asking again while a request is pending updates it. Follow it with svc requests mine.`,
    options: { project: { type: 'string' }, level: { type: 'string' }, reason: { type: 'string' } },
    async run(io, v) {
      await requestAccessCommand(io, await callerOf(io, v), v);
    },
  },

  members: {
    summary: "a project's members: list, add or set a role, remove; pending invitations: cancel",
    usage: 'svc members list|add <email>|set <email>|remove <user-id>|cancel <invitation-id> [--project <slug>] [--role R] [--json]',
    details: `  --project SLUG      the project (default: the one "svc use" chose, or your only one)
  --role ROLE         add, set: VIEWER, EDITOR or ADMIN (any case)

An address without a confirmed svc account is not added: it is mailed an invitation (7 days),
listed by list until its owner accepts it or you cancel it.`,
    options: { project: { type: 'string' }, role: { type: 'string' } },
    subcommands: ['list', 'add', 'set', 'remove', 'cancel'],
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
  --level LEVEL       grant: VIEWER (default), EDITOR or ADMIN (any case)
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
    subcommands: ['list', 'create', 'grant', 'rotate', 'revoke', 'keys', 'set-keys', 'remove-keys'],
    async run(io, v, positionals) {
      await serviceAccountsCommand(io, await callerOf(io, v), v, positionals);
    },
  },

  'workload-issuers': {
    summary:
      "a workspace's workload issuers (GitHub Actions, Kubernetes, SPIFFE) whose tokens become service-account tokens: list, add, remove",
    usage:
      "svc workload-issuers list|add|remove <id> [--workspace W] [--kind github-actions|kubernetes|spiffe] [--issuer I] [--audience A] [--jwks-file F | --jwks-uri U] [--rule 'BOT=claim:pattern,...;...'] [--json]",
    details: `  --workspace W       the workspace (default: the current key's)
  --kind KIND         add: github-actions, kubernetes or spiffe
  --issuer I          add: the issuer URL (github-actions: GitHub's by default); spiffe: spiffe://TRUST-DOMAIN
  --audience A        add: the aud its tokens must name (default: the auth URL)
  --jwks-file FILE    add: the issuer's public JWK Set (a SPIFFE bundle's JWT keys, a cluster's /openid/v1/jwks)
  --jwks-uri URL      add: or an https URL serving it (github-actions: GitHub's by default)
  --rule SPEC         add: SERVICE_ACCOUNT=claim:pattern[,claim:pattern...], several separated by ;
                      patterns are exact, * any run without /, ** any run (docs/workload-identity.md)
Adding an issuer already trusted replaces its rules. Only the workspace's owner manages these.`,
    options: {
      workspace: { type: 'string' },
      kind: { type: 'string' },
      issuer: { type: 'string' },
      audience: { type: 'string' },
      'jwks-file': { type: 'string' },
      'jwks-uri': { type: 'string' },
      rule: { type: 'string' },
    },
    subcommands: ['list', 'add', 'remove'],
    async run(io, v, positionals) {
      await workloadIssuersCommand(io, await callerOf(io, v), v, positionals);
    },
  },

  webhooks: {
    summary: "a workspace's signed webhooks: list, create, update, delete, rotate the secret, test, deliveries; listen here",
    usage:
      'svc webhooks list|create|update <id>|delete <id>|rotate <id>|test <id>|deliveries <id> [--workspace W] [--url U] [--events a,b] [--description D] [--enable|--disable] [--json]\n       svc webhooks listen --forward-to URL [--events a,b] [--secret whsec_...] [--workspace W] [--json]',
    details: `  --workspace W       the workspace (default: the current key's)
  --url URL           create, update: where events are POSTed (http or https)
  --events A,B        create, update: event types, e.g. key.created,key.revoked,quota.warning (docs/webhooks.md);
                      listen: only these
  --description D     create, update: a note for people
  --enable, --disable update: resume a failing or disabled endpoint, or stop sending
  --forward-to URL    listen: POST each new event of the workspace to this URL (e.g. http://localhost:4242/hooks),
                      signed as deliveries are, with this session's secret (printed) or --secret
listen reads the workspace's audit log every 2 s until Ctrl-C (docs/cli.md "svc webhooks listen").
A new signing secret (create, rotate) is printed once, alone on stdout. Only the workspace's owner manages these.`,
    options: {
      workspace: { type: 'string' },
      url: { type: 'string' },
      events: { type: 'string' },
      description: { type: 'string' },
      enable: { type: 'boolean' },
      disable: { type: 'boolean' },
      'forward-to': { type: 'string' },
      secret: { type: 'string' },
    },
    subcommands: ['list', 'create', 'update', 'delete', 'rotate', 'test', 'deliveries', 'listen'],
    async run(io, v, positionals) {
      await webhooksCommand(io, await callerOf(io, v), v, positionals);
    },
  },

  scim: {
    summary: "a workspace's SCIM provisioning: the tenant URL, make and revoke the directory's tokens",
    usage: 'svc scim show|create-token|revoke-token <id> [--workspace W] [--json]',
    details: `  --workspace W       the workspace (default: the current key's)
A new token is printed once, alone on stdout. Only the workspace's owner manages these (docs/auth-service.md "SCIM provisioning").`,
    options: { workspace: { type: 'string' } },
    subcommands: ['show', 'create-token', 'revoke-token'],
    async run(io, v, positionals) {
      await scimCommand(io, await callerOf(io, v), v, positionals);
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
};
