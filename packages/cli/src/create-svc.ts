/**
 * create-svc: connects the project folder it runs in to svc. A person signs up or signs in and
 * approves a project of their personal workspace in the browser (device flow, client `create-svc`
 * with `auto_provision`); then the project key goes to `.env`, `.env` into `.gitignore`, and
 * `.mcp.json` points MCP clients at the project, reading the key from the environment.
 * Run again in the same folder, it reuses the project, replaces the key (revoking the old one) and
 * adds no line twice. docs/cli.md describes it.
 */
import { stat } from 'node:fs/promises';
import { basename, isAbsolute, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { displayPrefix, parseCredential } from '@svc/credentials';
import { offerToOpen, type BrowserOffer } from './browser.ts';
import { deviceFlow, type DeviceCode } from './device-flow.ts';
import { CliError, EXIT } from './errors.ts';
import { hostsOf, serverHelp } from './hosts.ts';
import { requestJson } from './http.ts';
import { KEY_VARIABLE, serverName } from './mcp-config.ts';
import { ensureGitignore, keyInEnvFile, readMcpJson, writeEnvFile, writeMcpJson } from './project-files.ts';
import { run } from './run.ts';
import { waiting } from './ui.ts';
import { VERSION } from './version.ts';

const help = (env: NodeJS.ProcessEnv) => `create-svc ${VERSION}: connect this project folder to svc

Usage: create-svc [--dir PATH] [--name NAME] [--server URL] [--auth-server URL] [--json]

Opens a sign-in in your browser (create an account there if you have none) where you approve a
project of your personal workspace. Then, in the folder:
  .env         gets ${KEY_VARIABLE}=<project key> (mode 0600; other lines are kept)
  .gitignore   lists .env (created if missing)
  .mcp.json    gets an MCP server entry for the project that reads \${${KEY_VARIABLE}} from the environment
The project is named after the folder (or --name); running it again in a folder of the same name
reuses that project and replaces the key.

Options:
  --dir PATH          the project folder (default: the current directory)
  --name NAME         the project's name (default: the folder's name)
${serverHelp(env)}`;

/** The svc checkout these files run from (packages/cli/src, three levels down). */
const CHECKOUT = resolve(import.meta.dirname, '../../..');

/** Whether `dir` is the svc checkout or a folder inside it (create-svc run there by mistake). */
function insideSvcCheckout(dir: string): boolean {
  const rel = relative(CHECKOUT, dir);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

await run(async (io, argv) => {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        dir: { type: 'string' },
        name: { type: 'string' },
        server: { type: 'string' },
        'auth-server': { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (err) {
    throw new CliError((err as Error).message, EXIT.usage, 'Run "create-svc --help".');
  }
  if (values.help) return io.out(help(io.env));
  if (values.version) return io.out(VERSION);
  io.json = values.json === true;

  const dir = resolve(values.dir ?? process.cwd());
  if (!(await stat(dir).catch(() => null))?.isDirectory()) throw new CliError(`${dir} is not a folder.`, EXIT.usage);
  if (values.dir === undefined && insideSvcCheckout(dir))
    throw new CliError(
      `${dir} is the svc checkout itself, not your project's folder.`,
      EXIT.usage,
      'Run create-svc in the folder of the project to connect, or give it with --dir PATH.',
    );
  const projectName = (values.name ?? basename(dir)).trim();
  if (projectName === '' || projectName.length > 60)
    throw new CliError('The project name must be 1 to 60 characters.', EXIT.usage, 'Give one with --name NAME.');
  // Everything that can fail in the folder fails now, before the person approves anything.
  const previousKey = await keyInEnvFile(dir);
  const mcpJson = await readMcpJson(dir);
  const hosts = await hostsOf({ server: values.server, authServer: values['auth-server'] }, io.env);

  const offers: BrowserOffer[] = [];
  const token = await deviceFlow({
    authUrl: hosts.authUrl,
    clientId: 'create-svc',
    codeRequest: { auto_provision: true, project_name: projectName },
    show: (code: DeviceCode) => {
      const url = code.verification_uri_complete ?? code.verification_uri;
      const offer = offerToOpen(url, { env: io.env, onNote: io.err });
      offers.push(offer);
      io.err(
        [
          '',
          `  Open   ${url}`,
          `  Check that the page shows ${code.user_code}`,
          '',
          `Sign in (or create an account) and approve the project. The code is valid for ${Math.round(code.expires_in / 60)} minutes.`,
          ...(offer.prompt ? [offer.prompt] : []),
          '',
        ].join('\n'),
      );
    },
    progress: waiting(),
  }).finally(() => offers.forEach((o) => o.close()));
  const apiKey = String(token['api_key'] ?? '');
  // The key's terms, as the consent page named them (docs/auth-service.md "create-svc's key").
  const keyLevel = typeof token['api_key_level'] === 'string' ? token['api_key_level'] : null;
  const keyExpiresAt = typeof token['api_key_expires_at'] === 'string' ? token['api_key_expires_at'] : null;
  const slug = String(token['project_slug'] ?? '');
  const endpoint = String(token['mcp_endpoint'] ?? '');
  if (parseCredential(apiKey)?.kind !== 'project_key' || !slug || !endpoint) {
    throw new CliError('The server approved the request but sent no project key.', EXIT.failed);
  }
  // The folder keeps the project key only: the OAuth pair of the exchange is not needed here.
  await revokeOAuthTokens(hosts.authUrl, token);

  const env = await writeEnvFile(dir, apiKey);
  const gitignore = await ensureGitignore(dir);
  const mcp = await writeMcpJson(mcpJson, endpoint, slug);
  let previous: 'none' | 'revoked' | 'kept' = 'none';
  if (previousKey && previousKey !== apiKey && parseCredential(previousKey)) {
    const res = await requestJson(`${hosts.baseUrl}/api/v1/me/key`, { method: 'DELETE', headers: { 'X-API-Key': previousKey } }).catch(
      () => null,
    );
    previous = res?.status === 200 ? 'revoked' : 'kept';
  }

  io.result(
    {
      project_slug: slug,
      mcp_endpoint: endpoint,
      key_prefix: displayPrefix(apiKey),
      key_level: keyLevel,
      key_expires_at: keyExpiresAt,
      previous_key: previous,
      files: { env: env.file, gitignore: { file: gitignore.file, action: gitignore.action }, mcp_json: mcp.file },
    },
    [
      `Project ${slug} is ready: ${endpoint}`,
      `  ${env.file}: ${KEY_VARIABLE}=${displayPrefix(apiKey)} (${env.created ? 'created' : 'updated'}, mode 0600)`,
      ...(keyLevel || keyExpiresAt
        ? [
            `  The key acts at ${keyLevel ?? 'its level'}${keyExpiresAt ? ` and expires ${keyExpiresAt}: run create-svc again before then` : ''}.`,
          ]
        : []),
      `  ${gitignore.file}: ${gitignore.action === 'present' ? '.env already ignored' : `.env ${gitignore.action === 'created' ? 'listed (file created)' : 'added'}`}`,
      `  ${mcp.file}: server "${serverName(slug)}" ${mcp.created ? 'written' : 'updated'}, key read from \${${KEY_VARIABLE}}`,
      ...(previous === 'revoked' ? ['  The previous key of this folder was revoked.'] : []),
      ...(previous === 'kept' ? ['  The previous key of this folder could not be revoked; revoke it with svc-admin.'] : []),
      '',
      `Load the key into your shell before starting your MCP client, e.g.: set -a; . ./.env; set +a`,
    ],
  );
}, 'create-svc');

async function revokeOAuthTokens(authUrl: string, token: Record<string, unknown>): Promise<void> {
  for (const hint of ['refresh_token', 'access_token']) {
    const value = token[hint];
    if (typeof value !== 'string') continue;
    await requestJson(`${authUrl}/api/oauth/revoke`, { body: { token: value, token_type_hint: hint, client_id: 'create-svc' } }).catch(
      () => null,
    );
  }
}
