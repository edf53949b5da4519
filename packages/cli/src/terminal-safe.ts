/**
 * The one filter between the server and the terminal (docs/cli.md "What is printed"): every line
 * the CLIs write passes it (run.ts, ui.ts). A string from the server (a key, project or client
 * name, a request's reason, an error message, an audit entry) could otherwise carry characters a
 * terminal acts on instead of showing: ESC and CSI sequences that move the cursor, rewrite the
 * screen or the window title, CR that overwrites a line, bidi controls that reorder what is read
 * (Unicode UAX #9), invisible characters that hide text. Each such character is printed as a
 * visible `\uXXXX` escape, which inside a JSON string (--json) means the same character, so JSON
 * output stays valid and exact. Line feeds and tabs are kept: they are the CLI's own layout.
 */

/** C0 controls but LF and TAB, DEL, C1 controls, bidi marks/embeddings/overrides/isolates, zero-width and other invisible format characters. */
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- finding control characters is what it is for
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufeff\ufff9-\ufffb]/gu;

/** `text` with every character a terminal would act on, or hide, replaced by its `\uXXXX` escape. */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
