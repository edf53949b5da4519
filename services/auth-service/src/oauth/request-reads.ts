/**
 * The lookups a token request's steps share (store/request-storage.ts `sharedRead`): each read
 * once per request, every step checking that one snapshot (docs/auth-service.md "Storage round
 * trips"). Never kept across requests.
 */
import type { Accounts, Bot, Project, User } from '@svc/accounts';
import { sharedRead } from '../store/request-storage.ts';

/** The request's one read of a person. */
export const readUser = (accounts: Accounts, id: string): Promise<User | null> => sharedRead(`user:${id}`, () => accounts.users.get(id));

/** The request's one read of a project. */
export const readProject = (accounts: Accounts, slug: string): Promise<Project | null> =>
  sharedRead(`project:${slug}`, () => accounts.workspaces.getProject(slug));

/** The request's one read of a service account. */
export const readBot = (accounts: Accounts, id: string): Promise<Bot | null> => sharedRead(`bot:${id}`, () => accounts.bots.get(id));
