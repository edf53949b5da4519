/** The demo account of `pnpm demo`: a user, their workspace, a project, one key of each kind. */
import type { Accounts } from '@svc/accounts';
import type { Config } from '@svc/config';

export const DEMO_EMAIL = 'demo@example.com';
export const DEMO_PASSWORD = 'demo-password-change-me';
export const DEMO_PROJECT = 'demo';

export async function seedDemo(accounts: Accounts, config: Config, say: (line: string) => void): Promise<void> {
  const user =
    (await accounts.users.findByEmail(DEMO_EMAIL)) ?? (await accounts.users.create({ email: DEMO_EMAIL, password: DEMO_PASSWORD }));
  await accounts.workspaces.setPlan(user.workspace, 'PRO');
  const project =
    (await accounts.workspaces.getProject(DEMO_PROJECT)) ??
    (await accounts.workspaces.createProject({ slug: DEMO_PROJECT, workspace: user.workspace }));
  const keys: Record<string, string> = {};
  for (const level of ['VIEWER', 'EDITOR', 'ADMIN'] as const) {
    keys[level] = (
      await accounts.keys.createProjectKey({
        project: project.slug,
        workspace: project.workspace,
        level,
        name: `demo ${level.toLowerCase()}`,
      })
    ).key;
  }
  const personal = await accounts.keys.createUserKey({ userId: user.id });
  const { bot, key: botKey } = await accounts.bots.create({ workspace: user.workspace, name: 'demo ci bot' });
  await accounts.bots.grant(bot.id, project.slug, 'VIEWER');
  const lines = [
    '',
    'Demo account (keys are shown once; run `pnpm demo` again for fresh ones)',
    `  sign in at   ${config.authUrl}/signin   as ${DEMO_EMAIL} / ${DEMO_PASSWORD}`,
    `  workspace    ${user.workspace} (plan PRO)`,
    `  project      ${project.slug}   MCP endpoint ${config.baseUrl}/mcp/${project.slug}`,
    `  VIEWER key   ${keys['VIEWER']}`,
    `  EDITOR key   ${keys['EDITOR']}`,
    `  ADMIN key    ${keys['ADMIN']}`,
    `  personal key ${personal.key}  (all your projects, 30 days)`,
    `  bot key      ${botKey.key}  (team endpoint ${config.baseUrl}/mcp/team/${user.workspace})`,
    '',
    'Try:',
    `  curl -s ${config.baseUrl}/mcp/${project.slug} -H 'Content-Type: application/json' -H "X-API-Key: ${keys['VIEWER']}" \\`,
    `    -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"svc_help","arguments":{}}}'`,
    `  SVC_API_KEY=${keys['VIEWER']} SVC_BASE_URL=${config.baseUrl} pnpm exec svc call svc_help --project ${project.slug}`,
    `  SVC_BASE_URL=${config.baseUrl} SVC_AUTH_URL=${config.authUrl} pnpm exec svc login   # then: pnpm exec svc whoami`,
    '',
  ];
  for (const l of lines) say(l);
}
