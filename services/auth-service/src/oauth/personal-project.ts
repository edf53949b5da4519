/**
 * create-svc with auto_provision (docs/contract.md "Client profiles" rule 4): a project of the
 * user's personal workspace. With `project_name` (create-svc sends the folder's name) it is the
 * workspace's project of that name, created when there is none; without it, the workspace's first
 * project, or a new default one.
 */
import type { Accounts, User } from '@svc/accounts';
import { slugStem } from '@svc/accounts';

/** Longest `project_name` accepted (docs/contract.md "Device flow"). */
export const MAX_PROJECT_NAME = 60;

/** The project that would be used: an existing slug, or null when one will be created. */
export async function existingPersonalProject(accounts: Accounts, user: User, name?: string): Promise<string | null> {
  const slugs = await accounts.workspaces.projectsOf(user.workspace);
  if (name === undefined) return slugs[0] ?? null;
  for (const slug of slugs) if ((await accounts.workspaces.getProject(slug))?.name === name) return slug;
  return null;
}

export async function ensurePersonalProject(accounts: Accounts, user: User, name?: string): Promise<string> {
  const existing = await existingPersonalProject(accounts, user, name);
  if (existing) return existing;
  const stem = name !== undefined && slugStem(name).length >= 2 ? slugStem(name) : `${user.workspace.slice(0, 50)}-project`;
  const project = await accounts.workspaces.createProjectWithFreeSlug({ stem, workspace: user.workspace, name: name ?? 'Default project' });
  return project.slug;
}

/** The `project_name` of a device authorization request, when it sent one. */
export function projectNameOf(params: Record<string, unknown>): string | undefined {
  const name = params['project_name'];
  return typeof name === 'string' && name !== '' ? name : undefined;
}
