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
export function existingPersonalProject(accounts: Accounts, user: User, name?: string): Promise<string | null> {
  return accounts.workspaces.projectNamed(user.workspace, name);
}

/**
 * The project, made when there is none: once however many consents arrive at once (a form sent
 * twice), by one claim (`ensureProject` of @svc/accounts). Null when another request's making of
 * it did not finish in time: the page asks to send the form again.
 */
export function ensurePersonalProject(accounts: Accounts, user: User, name?: string): Promise<string | null> {
  const stem = name !== undefined && slugStem(name).length >= 2 ? slugStem(name) : `${user.workspace.slice(0, 50)}-project`;
  return accounts.workspaces.ensureProject({
    workspace: user.workspace,
    ...(name === undefined ? {} : { name }),
    stem,
    defaultName: 'Default project',
  });
}

/** The `project_name` of a device authorization request, when it sent one. */
export function projectNameOf(params: Record<string, unknown>): string | undefined {
  const name = params['project_name'];
  return typeof name === 'string' && name !== '' ? name : undefined;
}
