/** The second-factor pages (docs/auth-service.md "Second factor"), in the one page layout. */
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
  /** Why the sign-in stopped here: the workspace requires a second factor. */
  required?: boolean;
  error?: string | undefined;
}

/** TOTP enrolment: the QR code, the secret to type instead, and the confirming code. */
export function enrolPage(v: EnrolView): SafeHtml {
  const groups = v.secret.match(/.{1,4}/g)?.join(' ') ?? v.secret;
  return page(
    'Set up an authenticator app',
    html`${v.required && html`<p>Your workspace requires a second factor. Set one up to continue.</p>`}${errorLine(v.error)}
<p>Scan this code with an authenticator app, then enter the 6-digit code it shows.</p>
<p><img src="${v.qr}" width="200" height="200" alt="QR code of the authenticator secret; the secret is also written out below"></p>
<p>Or type this secret in the app: <code id="secret">${groups}</code></p>
<form method="post" action="${v.action}">${csrfField(v.csrf)}${codeFields}<button type="submit">Turn on</button></form>`,
  );
}

/** The recovery codes, shown once. */
export function recoveryCodesPage(codes: string[], next: string): SafeHtml {
  return page(
    'Save your recovery codes',
    html`<p>Each code signs you in once if you lose your authenticator. They are shown only now: keep them somewhere safe.</p>
<ul class="recovery-codes">${codes.map((c) => html`<li><code>${c}</code></li>`)}</ul>
<nav><a href="${next}">I have saved them, continue</a></nav>`,
  );
}

/** The account's second factors: listed, each removable with a confirmation. */
export function factorsPage(csrf: string, s: FactorSummary, notice?: string, maxPasskeys = 0): SafeHtml {
  const totp = s.totp
    ? html`<p>Authenticator app: on (${s.recoveryCodesLeft} recovery codes left).</p>
<form method="post" action="/factors/totp/remove">${csrfField(csrf)}
<label class="check"><input type="checkbox" name="confirm" value="yes" required> I want to remove my authenticator app</label>
<button type="submit" class="secondary">Remove authenticator app</button></form>`
    : html`<p>Authenticator app: off.</p><p><a href="/factors/totp">Set up an authenticator app</a></p>`;
  const passkeys = html`<h2>Passkeys</h2>${s.passkeys.length === 0 && html`<p>No passkey yet.</p>`}
<ul class="passkeys">${s.passkeys.map(
    (p, i) => html`<li>Passkey ${i + 1}, added ${new Date(p.createdAt).toISOString().slice(0, 10)}
<form method="post" action="/factors/passkey/remove">${csrfField(csrf)}<input type="hidden" name="id" value="${p.id}">
<label class="check"><input type="checkbox" name="confirm" value="yes" required> I want to remove passkey ${i + 1}</label>
<button type="submit" class="secondary">Remove passkey ${i + 1}</button></form></li>`,
  )}</ul>
${s.passkeys.length < maxPasskeys ? html`<p><a href="/factors/passkey">Add a passkey</a></p>` : html`<p>You have ${maxPasskeys} passkeys, the most an account may hold.</p>`}`;
  return page(
    'Second factors',
    html`${notice && html`<p role="status">${notice}</p>`}<h2>Authenticator app</h2>${totp}${passkeys}<nav><a href="/dashboard/account">Back to your account</a></nav>`,
  );
}

/** A step-up: the action asked for needs a second factor used within minutes. */
export function stepUpPage(csrf: string, returnTo: string, minutes: number, error?: string, passkey?: SafeHtml): SafeHtml {
  return page(
    'Confirm it is you',
    html`${errorLine(error)}<p>This action needs a second factor used within the last ${minutes} minutes.</p>${passkey}
<form method="post" action="/factors/step-up">${csrfField(csrf)}<input type="hidden" name="return" value="${returnTo}">${codeFields}
<button type="submit">Confirm</button></form>`,
  );
}

/** The step-up cannot be made: the person has no factor yet (their workspace requires one). */
export function enrolFirstPage(): SafeHtml {
  return page(
    'Set up a second factor first',
    html`<p>This action needs a second factor, and your account has none yet.</p><nav><a href="/factors/totp">Set up an authenticator app</a></nav>`,
  );
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

/** A new passkey, from the account's factors page. */
export function passkeyRegisterPage(csrf: string, options: unknown, error?: string): SafeHtml {
  return page(
    'Add a passkey',
    html`${errorLine(error)}<p>A passkey signs you in with your device's screen lock or a security key, as a second factor or without a password.</p>
${passkeyForm(csrf, ROUTES.passkeys.path, 'create', options, 'Add a passkey')}<nav><a href="/factors">Back to second factors</a></nav>`,
  );
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
