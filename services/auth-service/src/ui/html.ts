/**
 * The pages' one HTML renderer (docs/auth-service.md "Pages"): an auto-escaping tagged template.
 * `html\`<p>${name}</p>\`` escapes every interpolated value unless it is itself SafeHtml (made by
 * `html` or `trustedHtml`), so markup can only come from the literal parts of a template written
 * in our code. Pages are sent with `render`, which takes nothing but SafeHtml.
 */
import type { Response } from 'express';
import { pageStatus, type PageRefusal } from '@svc/errors';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML element content and quoted attribute values (HTML §13.1.2.3). */
function escapeText(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** Only this module makes SafeHtml: the constructor needs this key. */
const MADE_HERE = Symbol('SafeHtml');

/** Markup made by `html` (or, for constants, `trustedHtml`): interpolated as is, never escaped again. */
export class SafeHtml {
  readonly #markup: string;
  constructor(key: typeof MADE_HERE, markup: string) {
    if (key !== MADE_HERE) throw new TypeError('SafeHtml is made by html`` or trustedHtml()');
    this.#markup = markup;
  }
  toString(): string {
    return this.#markup;
  }
}

/**
 * What a template may interpolate: text and numbers (escaped), SafeHtml (as is), arrays of them
 * (joined with nothing), and null, undefined or false (nothing, for `${cond && html\`...\`}`).
 */
export type HtmlValue = SafeHtml | string | number | null | undefined | false | readonly HtmlValue[];

function part(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(part).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeText(String(value));
}

/** The auto-escaping template: every value is escaped unless it is SafeHtml. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += part(values[i]) + (strings[i + 1] ?? '');
  return new SafeHtml(MADE_HERE, out);
}

/** Fragments joined with a separator (itself markup, such as html`<br>`). */
export function joinHtml(parts: readonly SafeHtml[], separator: SafeHtml): SafeHtml {
  return new SafeHtml(MADE_HERE, parts.map(String).join(separator.toString()));
}

/**
 * The one way to raw markup, reviewed: for CONSTANT text of our own that `html` cannot carry
 * because escaping would change it, the contents of <style> and <script> (raw text elements,
 * where character references are not decoded: HTML §13.1.2.1). Never call it with anything that
 * came from a request, storage or another service. Its callers: the two stylesheets and the
 * dashboard's one script (checked by test/page-markup.unit.test.ts).
 */
export function trustedHtml(constant: string): SafeHtml {
  return new SafeHtml(MADE_HERE, constant);
}

/**
 * Sends a page: 200, or the status of the refusal it names (@svc/errors `PageRefusal`, docs/errors.md
 * "Three families, one table"), extra headers, and the SafeHtml as text/html.
 */
export function render(
  res: Response,
  body: SafeHtml,
  opts: { refusal?: PageRefusal | undefined; headers?: Record<string, string> } = {},
): void {
  res.status(opts.refusal ? pageStatus(opts.refusal) : 200);
  if (opts.headers) res.set(opts.headers);
  res.type('html').send(body.toString());
}
