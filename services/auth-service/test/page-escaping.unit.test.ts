/**
 * No input reaches a page unescaped (docs/auth-service.md "Pages"): every view function of the
 * sign-in, consent, device, reset, invitation and dashboard pages is given hostile text in all of
 * its text inputs at once; the page must parse (HTML parsing as a browser does it, by parse5) to
 * the same elements and attributes as with plain text, with the hostile text there intact.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Response } from 'express';
import fc from 'fast-check';
import { parse } from 'parse5';
import type { ProjectAccess } from '@svc/accounts';
import type { KeyRow } from '@svc/management';
import { accountPage, changePasswordPage } from '../src/dashboard/account/view.ts';
import { auditPage } from '../src/dashboard/audit/view.ts';
import type { Frame } from '../src/dashboard/frame.ts';
import { keyLimitPage, keysPage, newKeyPage, revokeKeyPage, rollKeyPage } from '../src/dashboard/keys/view.ts';
import { membersPage } from '../src/dashboard/members/view.ts';
import { newProjectPage } from '../src/dashboard/projects/view.ts';
import { requestsPage } from '../src/dashboard/requests/view.ts';
import { serviceAccountsPage } from '../src/dashboard/service-accounts/view.ts';
import { ssoPage } from '../src/dashboard/sso/view.ts';
import { usagePage } from '../src/dashboard/usage/view.ts';
import { confirmFirstPage } from '../src/pages/confirm-first.ts';
import { clientsPage } from '../src/dashboard/clients/view.ts';
import {
  clientGovernedPage,
  noAccessPage,
  personalKeyConsent,
  projectApprovalConsent,
  projectSelectionConsent,
  provisionConsent,
  refusalPage,
  type ConsentView,
} from '../src/pages/consent-views.ts';
import { deviceConfirmPage, deviceInputPage, deviceRefusedPage, deviceSuccessPage } from '../src/provider/device-pages.ts';
import { confirmEmailPage, emailConfirmedPage } from '../src/pages/email-verification.ts';
import { html, type SafeHtml } from '../src/ui/html.ts';
import { invitationRefusedPage, joinedPage, joinPage } from '../src/pages/invitation.ts';
import { alertPage, errorLine, homePage, page, providerErrorPage } from '../src/ui/layout.ts';
import { forgotPage, linkSentPage, newPasswordPage } from '../src/pages/password-reset.ts';
import { signInPage } from '../src/pages/sign-in.ts';
import { checkEmailPage, signUpPage } from '../src/pages/sign-up.ts';
import { tooMany } from '../src/http/too-many.ts';

const T = Date.UTC(2026, 0, 2, 3, 4);

const consent = (s: string): ConsentView => ({
  uid: s,
  csrf: s,
  clientName: s,
  verified: false,
  redirectHost: s,
  email: s,
  error: s,
  accessDays: 31,
});
const access = (s: string) => ({ project: { slug: s, name: s }, role: 'EDITOR' }) as ProjectAccess;

const frame = (s: string): Frame => {
  const project = { slug: s, name: s, workspace: s, role: 'ADMIN' };
  return {
    csrf: s,
    email: s,
    projects: [project],
    workspaces: [
      { slug: 'own-ws', own: true },
      { slug: s, own: false },
    ],
    ownWorkspace: 'own-ws',
    project,
    workspace: s,
    section: 'keys',
    pendingRequests: 2,
    flash: { kind: 'ok', text: s },
  };
};
const key = (s: string): KeyRow => ({
  id: s,
  name: s,
  level: 'VIEWER',
  prefix: s,
  createdAt: T,
  expiresAt: T,
  lastUsedAt: null,
  status: 'active',
  rateLimit: 10,
  note: s,
  allowedIps: [s],
  replacedBy: { id: s, name: s, prefix: s },
});

/** What an Express page helper sent, for the helpers that send rather than return. */
function sent(send: (res: Response) => void): string {
  let body = '';
  const res = { status: () => res, set: () => res, type: () => res, send: (b: string) => void (body = b) };
  send(res as unknown as Response);
  return body;
}

/** Every view, each with all its text inputs set to `s` (typed levels, roles and statuses stay valid values). */
const VIEWS: Record<string, (s: string) => SafeHtml | string> = {
  page: (s) => page(s, html`<p>${s}</p>`),
  errorLine: (s) => page('t', errorLine(s)),
  alertPage: (s) => alertPage(s, s),
  providerErrorPage: (s) => providerErrorPage(s, s),
  homePage: (s) => homePage(s),
  confirmFirstMail: (s) => confirmFirstPage({ uid: s, csrf: s, email: s, emailOn: true, sent: false }),
  confirmFirstNoMail: (s) => confirmFirstPage({ uid: s, csrf: s, email: s, emailOn: false }),
  personalKeyConsent: (s) => personalKeyConsent(consent(s), 30),
  projectSelection: (s) => projectSelectionConsent(consent(s), [access(s), access(s)], ['VIEWER', 'EDITOR', 'ADMIN']),
  projectSelectionNone: (s) => projectSelectionConsent(consent(s), [], ['VIEWER']),
  projectApproval: (s) => projectApprovalConsent(consent(s), access(s), ['VIEWER', 'EDITOR']),
  projectApprovalByRule: (s) => projectApprovalConsent({ ...consent(s), admittedBy: { workspace: s, rule: s } }, access(s), ['VIEWER']),
  clientRefused: (s) => clientGovernedPage(consent(s), { outcome: 'refused', rule: s, workspace: s }),
  clientAllowlist: (s) => clientGovernedPage(consent(s), { outcome: 'refused', rule: 'allowlist', workspace: s }),
  clientWaiting: (s) => clientGovernedPage(consent(s), { outcome: 'pending', rule: 'approval', workspace: s }),
  provisionExisting: (s) => provisionConsent(consent(s), s, { existing: s, name: s, keyLevel: 'EDITOR', keyDays: 90 }),
  provisionNew: (s) => provisionConsent(consent(s), s, { existing: null, name: s, keyLevel: 'EDITOR', keyDays: 90 }),
  noAccess: (s) => noAccessPage(consent(s), s, true),
  noAccessUnknown: (s) => noAccessPage(consent(s), s, false),
  refusal: (s) => refusalPage(s, s),
  deviceConfirm: (s) => deviceConfirmPage(s, s, s),
  deviceInput: (s) => deviceInputPage(s, s, s, true),
  deviceRefused: (s) => deviceRefusedPage(s),
  deviceSuccess: (s) => deviceSuccessPage(s),
  signIn: (s) => signInPage(s, s, s, s, html`<bdi>${s}</bdi>`),
  signUpField: (s) => signUpPage(s, s, s, { field: 'email', message: s }),
  signUpForm: (s) => signUpPage(s, s, s, { field: null, message: s }),
  signUpSent: (s) => checkEmailPage(s, s, true),
  signUpNoMail: (s) => checkEmailPage(s, s, false),
  forgot: (s) => forgotPage(s, s),
  newPassword: (s) => newPasswordPage(s, s, s),
  linkSent: (s) => linkSentPage(s),
  confirmEmail: (s) => confirmEmailPage(s, s),
  emailConfirmed: (s) => emailConfirmedPage(s),
  invitationRefused: (s) => invitationRefusedPage(s),
  join: (s) => joinPage(s, s, { project: s, role: s }),
  joined: (s) => joinedPage({ project: s, role: s }),
  tooMany: (s) => sent((res) => tooMany(res, 90, { returnTo: '/interaction/abc', csrf: s, reset: true })),
  keys: (s) =>
    keysPage(frame(s), {
      keys: [key(s), { ...key(s), status: 'revoked' }],
      creatableLevels: ['VIEWER', 'EDITOR'],
      canRevoke: true,
      created: { id: s, key: s, name: s, level: 'VIEWER', expiresAt: T, rateLimit: null, replacedUntil: T },
      filter: { status: s, q: s },
      now: T,
    }),
  newKey: (s) =>
    newKeyPage(frame(s), {
      creatableLevels: ['VIEWER', 'EDITOR'],
      error: { field: 'name', message: s },
      values: { name: s, level: s, expires: s, rateLimit: s },
    }),
  keyLimit: (s) => keyLimitPage(frame(s), key(s), s, s),
  sso: (s) =>
    ssoPage(
      frame(s),
      {
        settings: {
          kind: 'oidc',
          issuer: s,
          clientId: s,
          saml: null,
          defaultRole: 'VIEWER',
          required: true,
          groupRoles: [{ group: s, role: 'ADMIN' }],
          updatedAt: T,
        },
        claims: [
          { domain: s, token: s, verifiedAt: null },
          { domain: s, token: s, verifiedAt: T },
        ],
        serviceProvider: null,
      },
      { callback: s, sp: { entityId: s, acsUrl: s, metadataUrl: s } },
      s,
    ),
  revokeKey: (s) => revokeKeyPage(frame(s), key(s)),
  rollKey: (s) => rollKeyPage(frame(s), key(s)),
  requests: (s) =>
    requestsPage(frame(s), {
      requests: [
        { id: s, requester: s, level: s, reason: s, createdAt: T, status: 'pending', grantedLevel: null, decidedBy: null, decidedAt: null },
        { id: s, requester: s, level: s, reason: s, createdAt: T, status: 'approved', grantedLevel: s, decidedBy: s, decidedAt: T },
      ],
      canDecide: true,
      next: s,
      pending: 1,
      now: T + 60_000,
    }),
  members: (s) =>
    membersPage(frame(s), {
      members: [
        { userId: s, email: s, role: s, owner: false },
        { userId: s, email: s, role: s, owner: true },
      ],
      invitations: [{ id: s, email: s, role: s, invitedBy: s, createdAt: T, expiresAt: T }],
      canManage: true,
      error: s,
      email: s,
    }),
  serviceAccounts: (s) =>
    serviceAccountsPage(frame(s), {
      bots: [{ id: s, name: s, grants: { [s]: s }, keyPrefix: s, createdAt: T, revoked: false }],
      projects: [s],
      canManage: true,
      newKey: { bot: s, key: s },
    }),
  usage: (s) =>
    usagePage(frame(s), {
      minute: { used: 5, limit: 10 },
      month: { used: 95, quota: 100 },
      perKey: [{ name: s, prefix: s, project: s, count: 3 }],
      perTool: [{ tool: s, count: 2 }],
      daily: {
        days: ['2026-01-01', '2026-01-02'],
        requests: [1, 3],
        perKey: [{ name: s, prefix: s, project: s, counts: [1, 3] }],
        perTool: [{ tool: s, counts: [0, 2] }],
      },
    }),
  audit: (s) =>
    auditPage(frame(s), {
      entries: [
        {
          id: s,
          at: T,
          actor: s,
          action: s,
          target: s,
          source: s,
          requestId: s,
          principal: { type: 'user', id: s, label: s },
          agent: { type: 'oauth_client', id: s, name: s, verified: false, key: s },
          chain: [{ sub: s }],
        },
      ],
      action: s,
      actor: s,
      from: s,
      to: s,
      next: s,
      actions: [s, 'key.created'],
      error: s,
    }),
  account: (s) =>
    accountPage(frame(s), {
      email: s,
      emailVerified: false,
      apps: [
        {
          id: s,
          client: s,
          clientId: s,
          projects: [s],
          scopes: [{ project: s, scope: s }],
          createdAt: T,
          expiresAt: null,
          lastUsedAt: T,
          verified: false,
        },
      ],
      personalKeys: [{ id: s, client: s, prefix: s, createdAt: T, expiresAt: T, lastUsedAt: null }],
      sessions: [
        { handle: s, createdAt: T, agent: s, address: s, seenAt: T, seenAddress: s, current: true },
        { handle: s, createdAt: T, agent: s, address: s, seenAt: T, seenAddress: s, current: false },
        { handle: s, createdAt: T, agent: s, address: s, seenAt: T, seenAddress: s, current: false },
      ],
      requests: [{ id: s, project: s, level: s, status: 'approved', grantedLevel: s, createdAt: T, decidedAt: T }],
      olderRequests: s,
      emailOn: true,
      now: T,
    }),
  changePassword: (s) => changePasswordPage(frame(s), { error: { field: 'current', message: s } }),
  newProject: (s) => newProjectPage(frame(s), { workspaces: [s], error: s, name: s }),
  clients: (s) =>
    clientsPage(frame(s), {
      policy: { mode: 'approval', allow: [{ kind: 'name', value: s }], deny: [{ kind: 'host', value: s }], updatedAt: T },
      approvals: [
        { clientId: s, name: s, state: 'pending', requestedBy: s, requestedAt: T, decidedBy: null, decidedAt: null },
        { clientId: s, name: null, state: 'denied', requestedBy: s, requestedAt: T, decidedBy: s, decidedAt: T },
      ],
      now: T,
      error: { message: s, field: 'allow' },
    }),
};

/** Values the views compare text inputs with (select options): hostile text never equals one. */
const COMPARED = new Set(['VIEWER', 'EDITOR', 'ADMIN', '7d', '30d', '90d', '365d', 'never', '0m', '1h', '24h', 'key.created']);

/** Pieces an attacker would try: tags, quotes that close attributes, references, comments, bidi and astral characters. */
const HOSTILE = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "' onmouseover='alert(1)",
  '" autofocus onfocus="alert(1)',
  '</title><script>',
  '</textarea>',
  '</style>',
  '<!--',
  '-->',
  '<![CDATA[',
  '&',
  '&amp;',
  '&lt;',
  '&#x3c;',
  '&quot',
  '<svg/onload=alert(1)>',
  '<a href="javascript:alert(1)">',
  '=',
  '`',
  '${x}',
  '\u202e',
  '\u2028',
  '\u00a0',
  'é',
  '😀',
  '\t',
  '\n',
  ' ',
];

/** HTML parsing turns CR into LF and drops NUL (HTML §13.2.3.5), so inputs carry neither. */
const hostile = fc
  .array(fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 })), { minLength: 1, maxLength: 6 })
  .map((parts) => parts.join(''))
  .filter((s) => !/[\0\r]/.test(s) && !COMPARED.has(s));

interface Parsed {
  /** Every element with its attribute names, and every comment, in document order. */
  shape: string[];
  /** Every text node and attribute value. */
  texts: string[];
}

type Node = {
  nodeName: string;
  tagName?: string;
  attrs?: { name: string; value: string }[];
  value?: string;
  data?: string;
  childNodes?: Node[];
  content?: Node;
};

function parsed(markup: string): Parsed {
  const out: Parsed = { shape: [], texts: [] };
  const walk = (node: Node): void => {
    if (node.nodeName === '#text') out.texts.push(node.value ?? '');
    else if (node.nodeName === '#comment') out.shape.push(`<!--${node.data ?? ''}-->`);
    else if (node.tagName) {
      out.shape.push(`${node.tagName}[${(node.attrs ?? []).map((a) => a.name).join(' ')}]`);
      for (const a of node.attrs ?? []) out.texts.push(a.value);
    }
    for (const child of node.childNodes ?? []) walk(child);
    if (node.content) walk(node.content);
  };
  walk(parse(markup) as unknown as Node);
  return out;
}

for (const [name, view] of Object.entries(VIEWS)) {
  test(`${name}: hostile text stays text, intact, and adds no element or attribute`, () => {
    const plain = parsed(view('plain').toString());
    assert.ok(
      plain.texts.some((t) => t.includes('plain')),
      'the view shows its input',
    );
    fc.assert(
      fc.property(hostile, (s) => {
        const page = parsed(view(s).toString());
        assert.deepEqual(page.shape, plain.shape);
        assert.ok(
          page.texts.some((t) => t.includes(s)),
          `${JSON.stringify(s)} appears intact`,
        );
      }),
      { numRuns: 150 },
    );
  });
}
