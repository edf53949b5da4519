/**
 * create-svc with auto_provision (docs/contract.md "Client profiles" rule 4): the user's personal workspace
 * project, reused when the workspace has one, created otherwise.
 */
import type { Accounts, User } from '@svc/accounts';
import { AccountError } from '@svc/accounts';

/** The project that would be used: an existing slug, or null when one will be created. */
export async function existingPersonalProject(accounts: Accounts, user: User): Promise<string | null> {
  return (await accounts.workspaces.projectsOf(user.workspace))[0] ?? null;
}

export async function ensurePersonalProject(accounts: Accounts, user: User): Promise<string> {
  const existing = await existingPersonalProject(accounts, user);
  if (existing) return existing;
  const base = user.workspace.slice(0, 50);
  for (let n = 1; n < 100; n++) {
    const slug = n === 1 ? `${base}-project` : `${base}-project-${n}`;
    try {
      await accounts.workspaces.createProject({ slug, workspace: user.workspace, name: 'Default project' });
      return slug;
    } catch (err) {
      if (!(err instanceof AccountError && err.code === 'conflict')) throw err;
    }
  }
  throw new AccountError('conflict', `no free project slug in workspace ${user.workspace}`);
}
