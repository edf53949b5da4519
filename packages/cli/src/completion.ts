/**
 * `svc completion bash|zsh|fish` (docs/cli.md "Completion"): a completion script written from the
 * command table, the one place commands are declared, so it offers exactly the commands, their
 * first words (subcommands) and their options that run.
 */
import type { Command, Options } from './command.ts';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

interface Entry {
  name: string;
  summary: string;
  subcommands: readonly string[];
  /** Each option's flag and whether it takes a value. */
  options: { flag: string; value: boolean }[];
}

function entries(table: Record<string, Command>, global: Options): Entry[] {
  return Object.entries(table).map(([name, c]) => ({
    name,
    summary: c.summary,
    subcommands: c.subcommands ?? [],
    options: Object.entries({ ...global, ...c.options }).map(([flag, o]) => ({ flag, value: o.type === 'string' })),
  }));
}

/** `text` inside single quotes for a POSIX shell or zsh. */
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function bash(list: Entry[]): string {
  const cases = list
    .map((e) => `    ${e.name}) subs=${quote(e.subcommands.join(' '))}; opts=${quote(e.options.map((o) => `--${o.flag}`).join(' '))} ;;`)
    .join('\n');
  return `# svc completion for bash. Load it now:  source <(svc completion bash)
# or for every shell:  svc completion bash > ~/.local/share/bash-completion/completions/svc
_svc() {
  local cur=\${COMP_WORDS[COMP_CWORD]} subs='' opts=''
  if ((COMP_CWORD == 1)); then
    COMPREPLY=($(compgen -W ${quote(list.map((e) => e.name).join(' '))} -- "$cur"))
    return
  fi
  case \${COMP_WORDS[1]} in
${cases}
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  elif ((COMP_CWORD == 2)); then
    COMPREPLY=($(compgen -W "$subs" -- "$cur"))
  fi
}
complete -F _svc svc
`;
}

function zsh(list: Entry[]): string {
  const commands = list.map((e) => `    ${quote(`${e.name}:${e.summary}`)}`).join('\n');
  const cases = list
    .map((e) => `    ${e.name}) subs=(${e.subcommands.join(' ')}); opts=(${e.options.map((o) => `--${o.flag}`).join(' ')}) ;;`)
    .join('\n');
  return `#compdef svc
# svc completion for zsh. Load it now:  source <(svc completion zsh)
# or for every shell: svc completion zsh > "\${fpath[1]}/_svc"
_svc() {
  local -a commands subs opts
  commands=(
${commands}
  )
  if ((CURRENT == 2)); then
    _describe 'svc command' commands
    return
  fi
  case $words[2] in
${cases}
  esac
  if [[ $PREFIX == -* ]]; then
    compadd -- $opts
  elif ((CURRENT == 3)); then
    compadd -- $subs
  fi
}
if [[ $funcstack[1] == _svc ]]; then _svc "$@"; else compdef _svc svc; fi
`;
}

/** `text` inside single quotes for fish (which escapes \\ and ' there). */
const fishQuote = (text: string) => `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;

function fish(list: Entry[]): string {
  const lines = ['# svc completion for fish: svc completion fish > ~/.config/fish/completions/svc.fish', 'complete -c svc -f'];
  for (const e of list) {
    lines.push(`complete -c svc -n __fish_use_subcommand -a ${e.name} -d ${fishQuote(e.summary)}`);
    const seen = `__fish_seen_subcommand_from ${e.name}`;
    if (e.subcommands.length)
      lines.push(
        `complete -c svc -n ${fishQuote(`${seen}; and test (count (commandline -opc)) -eq 2`)} -a ${fishQuote(e.subcommands.join(' '))}`,
      );
    for (const o of e.options) lines.push(`complete -c svc -n ${fishQuote(seen)} -l ${o.flag}${o.value ? ' -r' : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The completion script for `shell`, from the command table and the options every command takes. */
export function completionScript(shell: Shell, table: Record<string, Command>, global: Options): string {
  const list = entries(table, global);
  return shell === 'bash' ? bash(list) : shell === 'zsh' ? zsh(list) : fish(list);
}
