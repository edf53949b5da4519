/**
 * The second-factor pages (docs/auth-service.md "Second factor"). Those of the sign-in (before a
 * session exists) are whole pages in the one page layout; those of a signed-in person are a title
 * and a body, which the routes put in the account frame (page-kit.ts `AccountFrame`: the
 * dashboard's). Their section headings are h2, smaller than the page's h1 in either layout.
 */
import type { FactorSummary } from '@svc/accounts';
import { csrfField } from '../http/web-session.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { errorLine, page } from '../ui/layout.ts';
import { ROUTES } from '../http/routes.ts';

const codeFields = html`<label for="code">Code from your authenticator app</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" maxlength="8" class="code">`;

/** After the password: a code, or a recovery code. */
export function factorPage(csrf: string, error?: string, passkey?: SafeHtml): SafeHtml {
  return page(
    'Second factor',
    html`${errorLine(error)}${passkey}<p>Enter the 6-digit code your authenticator app shows for svc.</p>
<form method="post" action="/signin/factor">${csrfField(csrf)}${codeFields}<button type="submit">Continue</button></form>
<details><summary>Lost your authenticator?</summary>
<form method="post" action="/signin/factor">${csrfField(csrf)}
<label for="recovery">Recovery code</label><input id="recovery" name="recovery" type="text" autocomplete="off" maxlength="40">
<button type="submit" class="secondary">Use a recovery code</button></form>
<p class="muted">No recovery code either? An owner of your workspace can reset your second factor.</p></details>
<nav><a href="/signin">Start again</a></nav>`,
  );
}

export interface EnrolView {
  csrf: string;
  action: string;
  qr: string;
  secret: string;
  /** The secret's fingerprint, posted back so a mistyped code keeps it (enrol.ts `enrolmentOf`). */
  shown: string;
  /** Why the sign-in stopped here: the workspace requires a second factor. */
  required?: boolean;
  error?: string | undefined;
}

export const ENROL_TITLE = 'Set up an authenticator app';

/** TOTP enrolment's body: the QR code, the secret to type instead, and the confirming code. */
export function enrolBody(v: EnrolView): SafeHtml {
  const groups = v.secret.match(/.{1,4}/g)?.join(' ') ?? v.secret;
  return html`${v.required && html`<p>Your workspace requires a second factor. Set one up to continue.</p>`}${errorLine(v.error)}
<p>Scan this code with an authenticator app (Google Authenticator, 1Password, Authy…), then enter the 6-digit code it shows.</p>
<p><img src="${v.qr}" width="200" height="200" alt="QR code of the authenticator secret; the secret is also written out below"></p>
<p>Or type this secret in the app: <code id="secret">${groups}</code></p>
<form method="post" action="${v.action}" class="enrol">${csrfField(v.csrf)}<input type="hidden" name="shown" value="${v.shown}">${codeFields}<button type="submit">Turn on</button></form>`;
}

export const RECOVERY_TITLE = 'Save your recovery codes';

/**
 * The recovery codes' body, shown once: a Copy button (the dashboard frame's script copies the
 * list's text, one code a line) and a download of them as a text file, a `data:` link with the
 * `download` attribute (HTML §4.6.5), which needs no script and keeps them off the server.
 */
export function recoveryCodesBody(codes: string[], next: string, email: string): SafeHtml {
  const file = `svc recovery codes for ${email}\nEach code signs you in once if you lose your authenticator app.\n\n${codes.join('\n')}\n`;
  return html`<p>Each code signs you in once if you lose your authenticator. They are shown only now: keep them in a password manager or print them.</p>
<ul class="recovery-codes" id="recovery-codes">${codes.map((c, i) => html`${i > 0 && '\n'}<li><code>${c}</code></li>`)}</ul>
<p class="recovery-actions"><button type="button" class="secondary" data-copy="recovery-codes" hidden>Copy codes</button>
<a class="button secondary" href="data:text/plain;charset=utf-8,${encodeURIComponent(file)}" download="svc-recovery-codes.txt">Download as a text file</a></p>
<nav><a href="${next}">I have saved them, continue</a></nav>`;
}

/** The recovery codes as a whole page, for the sign-in's enrolment. */
export const recoveryCodesPage = (codes: string[], next: string, email: string): SafeHtml =>
  page(RECOVERY_TITLE, recoveryCodesBody(codes, next, email));

export const FACTORS_TITLE = 'Second factors';

/** The account's second factors: listed, each removable with a confirmation. */
export function factorsBody(csrf: string, s: FactorSummary, notice?: string, maxPasskeys = 0): SafeHtml {
  const totp = s.totp
    ? html`<p>Authenticator app: on (${s.recoveryCodesLeft} recovery codes left).</p>
<form method="post" action="/factors/totp/remove">${csrfField(csrf)}
<label class="check"><input type="checkbox" name="confirm" value="yes" required> I want to remove my authenticator app</label>
<button type="submit" class="secondary">Remove authenticator app</button></form>`
    : html`<p>Authenticator app: off. An app on your phone (Google Authenticator, 1Password, Authy…) shows a 6-digit code that changes every 30 seconds; svc asks for it after your password.</p><p><a class="button" href="/factors/totp">Set up an authenticator app</a></p>`;
  const passkeys = html`<h2>Passkeys</h2>${
    s.passkeys.length === 0 &&
    html`<p>No passkey yet. A passkey signs you in with this device's screen lock (fingerprint, face, PIN) or a security key: no code to type, and it cannot be phished.</p>`
  }
<ul class="passkeys">${s.passkeys.map(
    (p, i) => html`<li>Passkey ${i + 1}, added ${new Date(p.createdAt).toISOString().slice(0, 10)}
<form method="post" action="/factors/passkey/remove">${csrfField(csrf)}<input type="hidden" name="id" value="${p.id}">
<label class="check"><input type="checkbox" name="confirm" value="yes" required> I want to remove passkey ${i + 1}</label>
<button type="submit" class="secondary">Remove passkey ${i + 1}</button></form></li>`,
  )}</ul>
${s.passkeys.length < maxPasskeys ? html`<p><a href="/factors/passkey">Add a passkey</a></p>` : html`<p>You have ${maxPasskeys} passkeys, the most an account may hold.</p>`}`;
  return html`${notice && html`<p role="status" class="flash ok">${notice}</p>`}<h2>Authenticator app</h2>${totp}${passkeys}<p><a href="/dashboard/account">Back to your account</a></p>`;
}

export const STEP_UP_TITLE = 'Confirm it is you';

/** A step-up: the action asked for needs a second factor used within minutes. */
export function stepUpBody(csrf: string, returnTo: string, minutes: number, error?: string, passkey?: SafeHtml): SafeHtml {
  return html`${errorLine(error)}<p>This action needs a second factor used within the last ${minutes} minutes. Give it once, and you go back to where you were.</p>${passkey}
<form method="post" action="/factors/step-up" class="step-up">${csrfField(csrf)}<input type="hidden" name="return" value="${returnTo}">${codeFields}
<button type="submit">Confirm</button></form><p><a href="${returnTo}">Cancel</a></p>`;
}

export const ENROL_FIRST_TITLE = 'Set up a second factor first';

/** The step-up cannot be made: the person has no factor yet (their workspace requires one). */
export function enrolFirstBody(): SafeHtml {
  return html`<p>This action needs a second factor, and your account has none yet.</p><p><a class="button" href="/factors/totp">Set up an authenticator app</a> <a href="/factors/passkey">Add a passkey</a></p>`;
}

/**
 * A form that asks the browser for a passkey (factors/passkey-script.ts does, then submits it):
 * `kind` "create" for a new one, "get" to use one; `options` as @simplewebauthn/server made them.
 */
export function passkeyForm(
  csrf: string,
  action: string,
  kind: 'create' | 'get',
  options: unknown,
  label: string,
  extra?: SafeHtml,
): SafeHtml {
  return html`<form method="post" action="${action}" data-passkey="${kind}" data-options="${JSON.stringify(options)}">${csrfField(csrf)}${extra}
<input type="hidden" name="credential" value=""><button type="submit">${label}</button><p class="passkey-status muted" role="status"></p></form>
<script src="${ROUTES.passkeyScript.path}"></script>`;
}

export const PASSKEY_TITLE = 'Add a passkey';

/** A new passkey, from the account's factors page. */
export function passkeyRegisterBody(csrf: string, options: unknown, error?: string): SafeHtml {
  return html`${errorLine(error)}<p>A passkey signs you in with your device's screen lock or a security key, as a second factor or without a password.</p>
${passkeyForm(csrf, ROUTES.passkeys.path, 'create', options, 'Add a passkey')}<p><a href="/factors">Back to second factors</a></p>`;
}

/** Passwordless sign-in with a passkey (a discoverable credential names the person). */
export function passkeySignInPage(csrf: string, options: unknown, returnTo: string, error?: string): SafeHtml {
  return page(
    'Sign in with a passkey',
    html`${errorLine(error)}<p>Use a passkey saved on this device or a security key.</p>
${passkeyForm(csrf, ROUTES.passkeySignIn.path, 'get', options, 'Sign in with a passkey', html`<input type="hidden" name="return" value="${returnTo}">`)}
<nav><a href="/signin?return=${encodeURIComponent(returnTo)}">Sign in with a password instead</a></nav>`,
  );
}
