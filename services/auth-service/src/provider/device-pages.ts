/**
 * The pages of the device flow at `{auth_url}/device` (oidc-provider's deviceFlow page hooks).
 * Each form carries the provider's own xsrf field (oidc-provider docs, features.deviceFlow).
 * docs/contract.md "Device flow pages": with `?code=` the code is shown for confirmation, except for
 * svc-cli, whose user must type the code from the terminal.
 */
import type { KoaContextWithOIDC } from 'oidc-provider';
import { clientProfile } from '@svc/accounts';
import { html, type SafeHtml } from '../ui/html.ts';
import { errorLine, page } from '../ui/layout.ts';
import { normalizeUserCode } from '../oauth/user-code.ts';

/** `WDJB4821` -> `WDJB-4821`. */
function displayUserCode(normalized: string): string {
  return `${normalized.slice(0, 4)}-${normalized.slice(4)}`;
}

const ERROR_TEXT: Record<string, string> = {
  NoCodeError: 'Enter the code shown on your device.',
  NotFoundError: 'That code is unknown. Check it and type it again.',
  ExpiredError: 'That code has expired. Start again on your device to get a new one.',
  AlreadyUsedError: 'That code has already been used. Start again on your device to get a new one.',
};

function xsrfOf(ctx: KoaContextWithOIDC): string {
  return (ctx.oidc.session?.state as { secret?: string } | undefined)?.secret ?? '';
}

function inputForm(action: string, xsrf: string): SafeHtml {
  return html`<form method="post" action="${action}">
<input type="hidden" name="xsrf" value="${xsrf}"><input type="hidden" name="confirm" value="yes">
<label for="user_code">Code</label>
<input class="code" id="user_code" name="user_code" type="text" placeholder="XXXX-0000" autocomplete="off" autocapitalize="characters" spellcheck="false" required autofocus>
<button type="submit">Continue</button></form>`;
}

/** The page asking to confirm the code shown (the `?code=` link of a device other than svc-cli's). */
export function deviceConfirmPage(action: string, xsrf: string, code: string): SafeHtml {
  return page('Confirm your device', confirmForm(action, xsrf, code));
}

/** The code entry page: `message` says what was wrong with the last code; `typeIt` for svc-cli's codes. */
export function deviceInputPage(action: string, xsrf: string, message: string | undefined, typeIt: boolean): SafeHtml {
  const hint = typeIt
    ? html`<p>Type the code shown in your terminal. It is not filled in for you, so that only the person at that terminal can approve it.</p>`
    : html`<p>Enter the code shown on your device or in your terminal.</p>`;
  return page('Connect a device', html`${errorLine(message)}${hint}${inputForm(action, xsrf)}`);
}

/** After Cancel: nothing authorized, and the device told so. */
export function deviceRefusedPage(action: string): SafeHtml {
  return page(
    'Device refused',
    html`<p role="status">You refused the request. Nothing was authorized, and the device has been told. You can close this page.</p><nav><a href="${action}">Enter another code</a></nav>`,
  );
}

/** After approval: the client's name, as it registered it. */
export function deviceSuccessPage(name: string): SafeHtml {
  return page(
    'Device connected',
    html`<p role="status">You approved <strong>${name}</strong>. You can close this page and return to your device.</p>`,
  );
}

function confirmForm(action: string, xsrf: string, code: string): SafeHtml {
  return html`<p>Check that this code matches the one on your device:</p>
<p class="code-shown" aria-label="code">${code}</p>
<form method="post" action="${action}">
<input type="hidden" name="xsrf" value="${xsrf}"><input type="hidden" name="user_code" value="${code}">
<button type="submit" name="confirm" value="yes">Yes, continue</button>
<button type="submit" class="secondary" name="abort" value="yes">Cancel</button></form>`;
}

export function createDevicePages() {
  /** The client a user code was issued to, through the provider's DeviceCode model (expired codes too: the confirmation says so). */
  async function clientOfCode(ctx: KoaContextWithOIDC, normalized: string): Promise<string | null> {
    if (!/^[A-Z0-9]{8}$/.test(normalized)) return null;
    const code = await ctx.oidc.provider.DeviceCode.findByUserCode(normalized, { ignoreExpiration: true });
    return code?.clientId ?? null;
  }

  return {
    async userCodeInputSource(ctx: KoaContextWithOIDC, _form: string, _out: unknown, err?: Error): Promise<void> {
      const action = ctx.oidc.urlFor('code_verification');
      const given = typeof ctx.query['code'] === 'string' ? normalizeUserCode(ctx.query['code']) : '';
      const clientId = !err && given ? await clientOfCode(ctx, given) : null;
      const typed = clientId !== null && clientProfile(clientId).typedCode;
      if (clientId && !typed) {
        ctx.body = String(deviceConfirmPage(action, xsrfOf(ctx), displayUserCode(given)));
        return;
      }
      // Deny ends here: the device is told access_denied when it polls, and the person is done.
      if (err?.name === 'AbortedError') {
        ctx.body = String(deviceRefusedPage(action));
        return;
      }
      const message = err ? (ERROR_TEXT[err.name] ?? 'Something went wrong. Try again.') : undefined;
      ctx.body = String(deviceInputPage(action, xsrfOf(ctx), message, typed));
    },

    async userCodeConfirmSource(ctx: KoaContextWithOIDC, _form: string, _client: unknown, _info: unknown, userCode: string): Promise<void> {
      ctx.body = String(deviceConfirmPage(ctx.oidc.urlFor('code_verification'), xsrfOf(ctx), userCode));
    },

    async successSource(ctx: KoaContextWithOIDC): Promise<void> {
      const name = ctx.oidc.client?.clientName ?? ctx.oidc.client?.clientId ?? 'your device';
      ctx.body = String(deviceSuccessPage(name));
    },
  };
}
