/**
 * Project > Members (docs/dashboard.md): members and roles, adding by email (or an invitation),
 * changing a role, removing; pending invitations with Revoke (confirmed first).
 */
import type { InvitationRow, MemberRow } from '@svc/management';
import { html, type SafeHtml } from '../../ui/html.ts';
import { dashboardPage, postForm, type Frame } from '../frame.ts';
import { confirmButton, emptyState, LEVELS, levelOptions, table, when } from '../parts.ts';

export interface MembersPage {
  members: MemberRow[];
  invitations: InvitationRow[];
  canManage: boolean;
  error?: string;
  email?: string;
}

function addForm(f: Frame, v: MembersPage, base: string): SafeHtml {
  return html`<h2>Add a member</h2>${postForm(
    f,
    base,
    html`<label for="member-email">Email</label><input id="member-email" name="email" type="email" required value="${v.email ?? ''}"${
      v.error && html` aria-invalid="true" aria-describedby="member-error" autofocus`
    }>${v.error && html`<p class="error" id="member-error">${v.error}</p>`}
<label for="member-role">Role</label><select id="member-role" name="role">${levelOptions(LEVELS, 'VIEWER')}</select>`,
    html`<button type="submit">Add member</button>`,
  )}<p class="muted">An address without a confirmed svc account is mailed an invitation instead; it becomes a member when its owner accepts. Removing a member also revokes what they reach through this project: their OAuth grants for it and their personal keys' access to it.</p>`;
}

/** What removing a member ends: their role here, and what they reach through it. */
export const removeMemberEnds = (m: MemberRow, slug: string): SafeHtml =>
  html`Remove <strong>${m.email}</strong> (${m.role}) from ${slug}? Their access to it ends, and with it what they reach through it: the OAuth apps they authorized for it and their personal keys' access to it, refused within a second.`;

/** What revoking an invitation ends: its link, before anyone accepted it. */
export const revokeInvitationEnds = (i: InvitationRow, slug: string): SafeHtml =>
  html`Revoke the invitation of <strong>${i.email}</strong> to ${slug} as ${i.role}? The link mailed to them stops working at once; nobody has accepted it yet. You can invite the address again later.`;

export function membersPage(f: Frame, v: MembersPage): SafeHtml {
  const base = `/dashboard/projects/${encodeURIComponent(f.project!.slug)}/members`;
  const rows = v.members.map((m) => {
    const manage =
      v.canManage && !m.owner
        ? html`${postForm(
            f,
            `${base}/${encodeURIComponent(m.userId)}/role`,
            html`<label for="role-${m.userId}" class="skip">Role of ${m.email}</label><select id="role-${m.userId}" name="role">${levelOptions(LEVELS, m.role)}</select>`,
            html`<button type="submit" class="small secondary">Change</button>`,
            'inline',
          )} ${confirmButton(`${base}/${encodeURIComponent(m.userId)}/remove`, 'Remove')}`
        : m.owner && html`<span class="muted">workspace owner</span>`;
    return [m.email, m.role, manage];
  });
  const invitations = v.invitations.map((i) => {
    const cancel =
      v.canManage && confirmButton(`${base.replace(/\/members$/, '/invitations')}/${encodeURIComponent(i.id)}/cancel`, 'Revoke');
    return [i.email, i.role, i.invitedBy, when(i.expiresAt), cancel];
  });
  const pending =
    v.invitations.length > 0 &&
    html`<h2>Pending invitations</h2><p class="muted">Each becomes a membership when its address's owner, signed in and confirmed, accepts; the link works once, until the time shown.</p>${table('Pending invitations', ['Email', 'Role', 'Invited by', 'Link works until', 'Manage'], invitations, '')}`;
  return dashboardPage(
    f,
    'Members',
    html`${table('Members', ['Email', 'Role', 'Manage'], rows, emptyState('Only the workspace owner so far.', html`<p>Members are people who reach this project's tools at their role: VIEWER reads, EDITOR also writes, ADMIN also manages keys, requests and members. ${v.canManage ? 'Add one by email below' : 'A project admin adds them'}; an address without an account is mailed an invitation. People can also ask for access themselves (Access requests).</p>`))}${pending}${v.canManage && addForm(f, v, base)}`,
  );
}
