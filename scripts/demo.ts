/**
 * The demo account of `pnpm demo`: a user, their workspace, a project with a few documents, and one
 * key of each kind. Running it again reuses the account and replaces every key it printed before
 * (the earlier ones are revoked), so repeated runs never pile up live keys.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Accounts, Redis } from '@svc/accounts';
import type { Config } from '@svc/config';
import { createEmbedder, uploadDocument } from '@svc/knowledge';

const DEMO_EMAIL = 'demo@example.com';
const DEMO_PASSWORD = 'demo-password-change-me';
const DEMO_PROJECT = 'demo';
const DEMO_BOT = 'demo ci bot';
/** Personal keys issued by the demo carry this client id, so the next run revokes them. */
const DEMO_CLIENT = 'svc-demo';
const DOCS_DIR = resolve(import.meta.dirname, 'demo-docs');
const KEY_LIFETIME_SECONDS = 30 * 24 * 3600;

export interface DemoAccount {
  email: string;
  password: string;
  workspace: string;
  project: string;
  documents: number;
  keys: { VIEWER: string; EDITOR: string; ADMIN: string; personal: string; bot: string };
}

/** Creates the demo account, or refreshes it: the same user and project, new keys, old keys revoked. */
export async function seedDemo(accounts: Accounts, redis: Redis, config: Config): Promise<DemoAccount> {
  const user =
    (await accounts.users.findByEmail(DEMO_EMAIL)) ??
    (await accounts.users.create({ emailVerified: true, email: DEMO_EMAIL, password: DEMO_PASSWORD }));
  await accounts.workspaces.setPlan(user.workspace, 'PRO');
  const project =
    (await accounts.workspaces.getProject(DEMO_PROJECT)) ??
    (await accounts.workspaces.createProject({ slug: DEMO_PROJECT, workspace: user.workspace }));

  for (const earlier of await accounts.keys.listForProject(project.slug)) {
    if (earlier.name.startsWith('demo ') && !earlier.revoked) await accounts.keys.revoke(earlier.id);
  }
  const projectKey = async (level: 'VIEWER' | 'EDITOR' | 'ADMIN') =>
    (
      await accounts.keys.createProjectKey({
        project: project.slug,
        workspace: project.workspace,
        level,
        name: `demo ${level.toLowerCase()}`,
        expiresInSeconds: KEY_LIFETIME_SECONDS,
      })
    ).key;
  const VIEWER = await projectKey('VIEWER');
  const EDITOR = await projectKey('EDITOR');
  const ADMIN = await projectKey('ADMIN');
  // A client id makes createUserKey revoke the personal keys an earlier run issued.
  const personal = await accounts.keys.createUserKey({ userId: user.id, clientId: DEMO_CLIENT, name: 'demo personal key' });

  const existingBot = (await accounts.bots.listForWorkspace(user.workspace)).find((b) => b.name === DEMO_BOT);
  let bot: string;
  if (existingBot) bot = (await accounts.bots.rotateKey(existingBot.id)).key;
  else {
    const created = await accounts.bots.create({ workspace: user.workspace, name: DEMO_BOT });
    await accounts.bots.grant(created.bot.id, project.slug, 'VIEWER');
    bot = created.key.key;
  }

  const embedder = createEmbedder(config.embeddings ?? {});
  const docs = readdirSync(DOCS_DIR).filter((f) => f.endsWith('.md'));
  for (const name of docs) {
    // Same name: the upload replaces the earlier copy, so a second run adds nothing.
    await uploadDocument(redis, embedder, project.slug, { name, content: readFileSync(resolve(DOCS_DIR, name), 'utf8') });
  }
  return {
    email: DEMO_EMAIL,
    password: DEMO_PASSWORD,
    workspace: user.workspace,
    project: project.slug,
    documents: docs.length,
    keys: { VIEWER, EDITOR, ADMIN, personal: personal.key, bot },
  };
}

/** What `pnpm demo` prints once both services answer. */
export function demoBanner(demo: DemoAccount, config: Config): string[] {
  const { keys } = demo;
  return [
    '',
    'Demo account (keys are shown once; `pnpm demo` again replaces them and revokes these)',
    `  sign in at   ${config.authUrl}/signin   as ${demo.email} / ${demo.password}`,
    `  workspace    ${demo.workspace} (plan PRO)`,
    `  project      ${demo.project} (${demo.documents} documents)   MCP endpoint ${config.baseUrl}/mcp/${demo.project}`,
    `  VIEWER key   ${keys.VIEWER}  (30 days)`,
    `  EDITOR key   ${keys.EDITOR}  (30 days)`,
    `  ADMIN key    ${keys.ADMIN}  (30 days)`,
    `  personal key ${keys.personal}  (all your projects, 30 days)`,
    `  bot key      ${keys.bot}  (service account, VIEWER on ${demo.project})`,
    '',
    'Try:',
    `  curl -s ${config.baseUrl}/mcp/${demo.project} -H 'Content-Type: application/json' -H "X-API-Key: ${keys.VIEWER}" \\`,
    `    -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"svc_search","arguments":{"query":"rotation"}}}'`,
    `  SVC_API_KEY=${keys.VIEWER} SVC_BASE_URL=${config.baseUrl} ./scripts/pnpm exec svc call svc_search --project ${demo.project} --arg query=rotation`,
    `  SVC_BASE_URL=${config.baseUrl} SVC_AUTH_URL=${config.authUrl} ./scripts/pnpm exec svc login   # then: svc whoami`,
    '',
  ];
}
