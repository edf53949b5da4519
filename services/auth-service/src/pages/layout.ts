/**
 * The one page layout: plain server-rendered HTML that works without JavaScript, reads well on
 * a phone (viewport meta, one fluid column) and is accessible (labels, lang, focus outlines,
 * error text tied to its field with role="alert").
 */
const CSS = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1a1a1a;background:#f4f5f7}
main{max-width:28rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.15)}
h1{font-size:1.4rem;margin:0 0 1rem}p{margin:.5rem 0 1rem}label{display:block;font-weight:600;margin:.75rem 0 .25rem}
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
`;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML element content and attribute values. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** A complete HTML page around `body` (already-escaped HTML). */
export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · svc</title><style>${CSS}</style></head>
<body><header><a href="/">svc</a></header><main>
<h1>${esc(title)}</h1>
${body}
</main><footer><a href="/">Account</a> · <a href="/device">Enter a device code</a></footer></body></html>`;
}

/** The 404 page: what happened and where to go, in the same layout as every page. */
export function notFoundPage(): string {
  return page(
    'Page not found',
    '<p>There is no page at this address. If you followed a link from your device or terminal, start again there.</p><nav><a href="/">Your account</a> · <a href="/device">Enter a device code</a> · <a href="/dashboard">Dashboard</a></nav>',
  );
}

/** An error line for a form, announced by screen readers. */
export function errorLine(message: string | undefined): string {
  return message ? `<p class="error" role="alert">${esc(message)}</p>` : '';
}
