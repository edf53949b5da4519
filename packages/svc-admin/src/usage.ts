/** svc-admin's help (docs/contract.md "svc-admin"): every command with its options. */
export const USAGE = `Usage: svc-admin <command> [options] [--json]

  user create --email E [--password-stdin]
  user set-password --email E [--password-stdin]
  user confirm-email --email E
  workspace create --slug S --owner E --plan PLAN
  workspace set-plan --slug S --plan PLAN [--agents on|off]
  workspace factor-policy --slug S [--required on|off]
  user reset-factors --email E
  project create --slug S --workspace W
  project list --workspace W
  member set --project S --email E --role NONE|VIEWER|EDITOR|ADMIN
  member list --project S
  key create --project S --level L --name N [--expires-in 30d|12h|90m|4w|never]
  key list --project S
  key revoke --id ID
  user-key create --email E
  bot create --workspace W --name N
  bot grant --id ID --project S --level L
  bot list --workspace W
  bot rotate --id ID [--overlap 24h|0m]
  bot revoke --id ID
  access-request list --project S
  access-request approve --id ID | deny --id ID
  legacy-key create --project S | --team W
  trusted-issuer add --workspace W --issuer URL (--jwks-file F | --jwks-uri URL)
  trusted-issuer list --workspace W
  trusted-issuer remove --workspace W --id ID
  workload-issuer add --workspace W --kind github-actions|kubernetes|spiffe [--issuer I] [--audience A]
      [--jwks-file F | --jwks-uri URL] --rule 'BOT_ID=claim:pattern[,claim:pattern...][;...]'
  workload-issuer list --workspace W
  workload-issuer remove --workspace W --id ID
  upstreams list --project S
  upstreams refresh --project S --name N
  upstreams remove --project S --name N
  upstream-signing-key rotate   (a new key for svc's forwarded tokens; docs/upstream-servers.md)
  pepper status
  migrate
  sso show --workspace W
  sso provider --workspace W --issuer URL --client-id ID [--secret-stdin]
  sso saml --workspace W (--metadata-file F | --entity-id ID --sso-url URL --certificate-file F)
           [--email-attribute A] [--groups-attribute A] [--want-response-signed on|off]
  sso policy --workspace W --default-role ROLE [--required on|off] [--groups group=ROLE,...]
  sso domain claim|verify|release --workspace W --domain D
  scim show --workspace W
  scim create-token --workspace W   (the token printed once)
  scim revoke-token --workspace W --id ID
  audit stream (--otlp-endpoint URL | --stdout) [--name N]
  audit verify <file|-> [--anchor HASH]   (an export complete and unaltered; reads only the file)
  webhooks run   (the webhook delivery worker, until SIGTERM; for WEBHOOKS=off auth-services)

Passwords are typed at a prompt (echo off) or, with --password-stdin, read from the first line of
standard input; never from the command line. Without either, user create makes an account that
cannot sign in until user set-password gives it one. Accounts made here have a confirmed address
(the operator vouches for it); user confirm-email confirms one made by sign-up (with EMAIL=off no
confirmation link can be mailed).
Reads REDIS_URL (default redis://127.0.0.1:6379), KEY_PEPPER and KEY_PEPPER_PREVIOUS. pepper status
counts the live keys that still need KEY_PEPPER_PREVIOUS (docs/operations.md "Rotating the key pepper");
migrate fills, after an upgrade, the indexes an earlier release did not keep (docs/operations.md "Upgrading"). With --json, prints exactly one
JSON object on stdout; sso acts for the workspace's owner (audited as svc-admin), reads
COOKIE_KEYS (the client secret is sealed under it, as the auth-service reads it) and the secret
from the first line of standard input with --secret-stdin (none: the saved one is kept); errors go to stderr (as {"error": ...} on stdout too with --json), exit 1.
audit stream runs until SIGTERM: it exports every workspace's audit log as OpenTelemetry logs
(OTLP/HTTP JSON; the URL may come from OTEL_EXPORTER_OTLP_LOGS_ENDPOINT, headers from
OTEL_EXPORTER_OTLP_LOGS_HEADERS) or as JSON lines on stdout, keeping a cursor per --name
(SVC_AUDIT_EXPORTER, default "default"); replicas of one name take turns (docs/audit.md "Streaming").
upstreams act as each project's admin through the management API's operations, audited as
service:svc-admin; refresh reads the server's tools now, as a gateway does, so give svc-admin the
gateway's BASE_URL (the issuer of svc's tokens) and UPSTREAM_ALLOWED_PRIVATE (docs/upstream-servers.md).`;
