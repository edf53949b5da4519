/**
 * What the dashboard asks of the management layer (docs/dashboard.md). Each operation takes the
 * signed-in person as the actor; the implementation decides whether they may (and records it in
 * the audit log). A refusal is a DashboardRefusal the routes turn into a page.
 */
import type { FrameProject } from './frame.ts';
import type { AccountPage, AuditRow, BotRow, KeyRow, MemberRow, NewKey, RequestRow, Usage } from './views.ts';

export interface Actor {
  userId: string;
  email: string;
  /** Where the request came from, for the audit log. */
  source: string;
  requestId: string;
}

export class DashboardRefusal extends Error {
  override name = 'DashboardRefusal';
  readonly status: 400 | 403 | 404 | 409;
  /** The form field the refusal is about, when it is one. */
  readonly field: string | undefined;

  constructor(status: 400 | 403 | 404 | 409, message: string, field?: string) {
    super(message);
    this.status = status;
    this.field = field;
  }
}

export interface DashboardBackend {
  projectsOf(actor: Actor): Promise<FrameProject[]>;
  /** Workspaces the person may create projects in. */
  workspacesOf(actor: Actor): Promise<string[]>;
  createProject(actor: Actor, input: { name: string; workspace: string }): Promise<{ slug: string }>;

  keys(actor: Actor, project: string): Promise<{ keys: KeyRow[]; creatableLevels: readonly string[]; canRevoke: boolean }>;
  createKey(actor: Actor, project: string, input: { name: string; level: string; expires: string }): Promise<NewKey>;
  revokeKey(actor: Actor, project: string, id: string): Promise<void>;
  rollKey(actor: Actor, project: string, id: string, overlap: string): Promise<NewKey>;

  requests(actor: Actor, project: string): Promise<{ requests: RequestRow[]; canDecide: boolean }>;
  decideRequest(actor: Actor, project: string, id: string, decision: { approve: true; level: string } | { approve: false }): Promise<void>;

  members(actor: Actor, project: string): Promise<{ members: MemberRow[]; canManage: boolean }>;
  addMember(actor: Actor, project: string, input: { email: string; role: string }): Promise<void>;
  setRole(actor: Actor, project: string, userId: string, role: string): Promise<void>;
  removeMember(actor: Actor, project: string, userId: string): Promise<void>;

  bots(actor: Actor, workspace: string): Promise<{ bots: BotRow[]; projects: string[]; canManage: boolean }>;
  createBot(actor: Actor, workspace: string, name: string): Promise<{ bot: string; key: string }>;
  grantBot(actor: Actor, workspace: string, id: string, project: string, level: string): Promise<void>;
  rotateBot(actor: Actor, workspace: string, id: string): Promise<{ bot: string; key: string }>;
  revokeBot(actor: Actor, workspace: string, id: string): Promise<void>;

  usage(actor: Actor, workspace: string): Promise<Usage>;
  /** The workspace's audit log, when the backend keeps one. */
  audit?(
    actor: Actor,
    workspace: string,
    page: { cursor?: string; action?: string },
  ): Promise<{ entries: AuditRow[]; next: string | null; actions: readonly string[] }>;
  auditExport?(actor: Actor, workspace: string): Promise<string[]>;

  account(actor: Actor): Promise<Omit<AccountPage, 'changePassword'>>;
  revokePersonalKey(actor: Actor, id: string): Promise<void>;
}
