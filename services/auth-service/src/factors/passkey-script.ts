/**
 * The one script of the sign-in pages (docs/auth-service.md "Passkeys"), served from the auth host
 * at `ROUTES.passkeyScript` (http/routes.ts) so the page CSP allows it with `script-src 'self'` and
 * nothing inline. A form with `data-passkey` ("create" or "get") and its options as JSON in
 * `data-options` asks the browser for a passkey (W3C WebAuthn Level 3 §5.1.3, §5.1.4), puts the
 * answer as JSON (base64url fields, as §5.1.8 toJSON gives them) in the form's `credential` field,
 * and submits the form.
 */
export const PASSKEY_SCRIPT = `'use strict';
(function () {
  function dec(s) {
    var b = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4));
    return Uint8Array.from(b, function (c) { return c.charCodeAt(0); });
  }
  function enc(buf) {
    if (!buf) return undefined;
    var s = '';
    new Uint8Array(buf).forEach(function (b) { s += String.fromCharCode(b); });
    return btoa(s).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  }
  function withIds(list) {
    return (list || []).map(function (c) { return Object.assign({}, c, { id: dec(c.id) }); });
  }
  function ask(kind, o) {
    if (kind === 'create') {
      var user = Object.assign({}, o.user, { id: dec(o.user.id) });
      return navigator.credentials.create({ publicKey: Object.assign({}, o, { challenge: dec(o.challenge), user: user, excludeCredentials: withIds(o.excludeCredentials) }) });
    }
    return navigator.credentials.get({ publicKey: Object.assign({}, o, { challenge: dec(o.challenge), allowCredentials: withIds(o.allowCredentials) }) });
  }
  function asJson(c) {
    var r = c.response;
    return {
      id: c.id,
      rawId: enc(c.rawId),
      type: c.type,
      authenticatorAttachment: c.authenticatorAttachment || undefined,
      clientExtensionResults: c.getClientExtensionResults(),
      response: {
        clientDataJSON: enc(r.clientDataJSON),
        attestationObject: enc(r.attestationObject),
        transports: r.getTransports ? r.getTransports() : undefined,
        authenticatorData: enc(r.authenticatorData),
        signature: enc(r.signature),
        userHandle: enc(r.userHandle),
      },
    };
  }
  document.querySelectorAll('form[data-passkey]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var status = form.querySelector('.passkey-status');
      ask(form.dataset.passkey, JSON.parse(form.dataset.options)).then(function (c) {
        form.querySelector('input[name=credential]').value = JSON.stringify(asJson(c));
        form.submit();
      }, function () {
        if (status) status.textContent = 'No passkey was used. Try again.';
      });
    });
  });
})();
`;
