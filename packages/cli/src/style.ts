/**
 * Colour on the terminal (docs/cli.md "What is printed"), decided once per stream: NO_COLOR set
 * to anything but the empty string turns it off (https://no-color.org); FORCE_COLOR turns it on
 * even into a pipe, and FORCE_COLOR=0 off (both as Node's own `tty` and gh's CLICOLOR_FORCE do,
 * the forced value wins); otherwise a stream has colour only when it is a terminal whose TERM is
 * not `dumb`. A line to print is text, or segments each with a style: the escape codes are
 * added after the text passed terminalSafe, so a server's string can never carry one.
 */

export type Style = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan';

export interface Segment {
  text: string;
  style?: Style | undefined;
}

/** SGR codes (ECMA-48 §8.3.117): on, and the code that turns just that attribute off. */
const SGR: Record<Style, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
};

/** Whether output to a stream that is (or is not) a terminal gets colour, given the environment. */
export function colourWanted(isTTY: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  const force = env['FORCE_COLOR'];
  if (force !== undefined && force !== '') return force !== '0' && force.toLowerCase() !== 'false';
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  return isTTY === true && env['TERM'] !== 'dumb';
}

/** `text` in `style` when colour is on; the text alone otherwise. */
export function paint(text: string, style: Style | undefined, colour: boolean): string {
  if (!colour || !style || text === '') return text;
  const [on, off] = SGR[style];
  return `\x1b[${on}m${text}\x1b[${off}m`;
}
