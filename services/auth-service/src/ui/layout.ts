/**
 * The one page layout: plain server-rendered HTML that works without JavaScript, reads well on
 * a phone (viewport meta, one fluid column) and is accessible (labels, lang, focus outlines,
 * error text tied to its field with role="alert").
 */
import { html, trustedHtml, type SafeHtml } from './html.ts';

const CSS = trustedHtml(`
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1a1a1a;background:#f4f5f7}
main{max-width:28rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.15)}
h1{font-size:1.4rem;margin:0 0 1rem}h2{font-size:1.1rem;margin:1.25rem 0 .5rem}p{margin:.5rem 0 1rem}label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=email],input[type=password],input[type=text],select{width:100%;padding:.6rem;font-size:1rem;border:1px solid #8a8f98;border-radius:4px}
input.code{font:1.5rem/1.2 ui-monospace,monospace;letter-spacing:.15em;text-transform:uppercase;text-align:center}
button{display:block;width:100%;margin:1rem 0 .5rem;padding:.7rem;font-size:1rem;font-weight:600;color:#fff;background:#1f5fbf;border:0;border-radius:4px;cursor:pointer}
button.secondary{color:#1f5fbf;background:#fff;border:1px solid #1f5fbf}
:focus-visible{outline:3px solid #b35c00;outline-offset:2px}.error{color:#a4000f;font-weight:600}.muted{color:#5a5f68;font-size:.9rem}
.check{display:flex;gap:.5rem;align-items:flex-start;font-weight:400}.check input{margin-top:.35rem}
fieldset{border:1px solid #c9ccd1;border-radius:4px;padding:.5rem 1rem}legend{font-weight:600}
.code-shown{font:1.6rem ui-monospace,monospace;letter-spacing:.15em;text-align:center;margin:1rem 0}
nav{text-align:center;font-size:.9rem}a{color:#1f5fbf}
header,footer{max-width:28rem;margin:1rem auto;padding:0 1.5rem;font-size:.9rem;color:#4a4f57}header a{font-weight:700;color:#10233f;text-decoration:none}
`);

/** A complete HTML page around `body`. */
export function page(title: string, body: SafeHtml): SafeHtml {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · svc</title><style>${CSS}</style></head>
<body><header><a href="/">svc</a></header><main>
<h1>${title}</h1>
${body}
</main><footer><a href="/">Account</a> · <a href="/device">Enter a device code</a></footer></body></html>`;
}

/** The 404 page: what happened and where to go, in the same layout as every page. */
export function notFoundPage(): SafeHtml {
  return page(
    'Page not found',
    html`<p>There is no page at this address. If you followed a link from your device or terminal, start again there.</p><nav><a href="/">Your account</a> · <a href="/device">Enter a device code</a> · <a href="/dashboard">Dashboard</a></nav>`,
  );
}

/** An error line for a form, announced by screen readers. */
export function errorLine(message: string | undefined): SafeHtml {
  return html`${message && html`<p class="error" role="alert">${message}</p>`}`;
}

/** A page that says one thing went wrong, announced by screen readers. */
export function alertPage(title: string, message: string): SafeHtml {
  return page(title, html`<p class="error" role="alert">${message}</p>`);
}

/** oidc-provider's error page (its renderError): the description and the OAuth error code (RFC 6749 §4.1.2.1). */
export function providerErrorPage(description: string, code: string): SafeHtml {
  return page(
    'Something went wrong',
    html`<p class="error" role="alert">${description}</p><p class="muted">Error: ${code}</p>
<nav><a href="/device">Enter a device code</a> · <a href="/signin">Sign in</a></nav>`,
  );
}

/** The page at `/`: who is signed in (null: nobody) and where to go from here. */
export function homePage(email: string | null): SafeHtml {
  const who =
    email === null
      ? html`<nav><a href="/signin">Sign in</a> · <a href="/signup">Create an account</a> · <a href="/device">Enter a device code</a></nav>`
      : html`<p>Signed in as <strong>${email}</strong>.</p><nav><a href="/dashboard">Dashboard</a> · <a href="/device">Enter a device code</a> · <a href="/signout">Sign out</a></nav>`;
  return page('svc account', who);
}
