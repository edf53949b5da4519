/** `svc mcp-config` (docs/cli.md "svc mcp-config"): the MCP client configuration for a project, keyless OAuth first. */
import { displayPrefix } from '@svc/credentials';
import { SURFACES } from '@svc/policy';
import { callerOf, surfaceOf, type Command } from './command.ts';
import { projectOf } from './default-project.ts';
import { CliError, EXIT } from './errors.ts';
import { baseUrlOf } from './hosts.ts';
import { KEY_VARIABLE, claudeAddCommand, cursorInstallLink, mcpClientConfigs, oauthSetup } from './mcp-config.ts';
import type { Io } from './run.ts';
import { readStoredKey } from './store.ts';

export const MCP_CONFIG_COMMAND: Command = {
  summary: 'print MCP client setup for a project: sign in with OAuth (no key), or a key from $SVC_API_KEY',
  usage: 'svc mcp-config [--project <slug>] [--client claude|cursor|vscode] [--surface NAME] [--json]',
  details: `  --project SLUG      the project whose MCP endpoint to configure (default: the one "svc use" chose, or your only one)
  --client NAME       only this client's snippet (claude, cursor, vscode); default all
  --surface NAME      the connection surface the client asks for: ${SURFACES.join(', ')} (default hosted)`,
  options: { project: { type: 'string' }, client: { type: 'string' }, surface: { type: 'string' } },
  async run(io, v) {
    const slug = await slugOf(io, v);
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
};

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

/** --project, else the default project when there is a key to ask with; without one, --project is needed. */
async function slugOf(io: Io, v: Record<string, unknown>): Promise<string> {
  if (typeof v['project'] === 'string' && v['project'] !== '') return v['project'];
  const caller = await callerOf(io, v).catch(() => null);
  if (!caller) throw new CliError('Which project? Give --project <slug>.', EXIT.usage, 'Run "svc projects" for the ones you can reach.');
  return projectOf(io.env, caller, v);
}
