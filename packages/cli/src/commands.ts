/**
 * Every command of `svc`, declared once (docs/cli.md "svc"): the dispatcher, help, completion and
 * "did you mean" all read this table, so what they offer is what runs.
 */
import { ACCOUNT_COMMANDS } from './account-commands.ts';
import { API_COMMAND } from './api-command.ts';
import { withAuditVerify } from './audit-verify-command.ts';
import { CALL_COMMAND } from './call-command.ts';
import { GLOBAL, type Command } from './command.ts';
import { completionScript, SHELLS, type Shell } from './completion.ts';
import { USE_COMMAND } from './default-project.ts';
import { DOCTOR_COMMAND } from './doctor-command.ts';
import { CliError, EXIT } from './errors.ts';
import { MANAGE_COMMANDS } from './manage-commands.ts';
import { UPSTREAMS_COMMAND } from './manage-upstreams.ts';
import { APPROVALS_COMMAND } from './manage-approvals.ts';
import { CLIENTS_COMMAND } from './manage-clients.ts';
import { MCP_CONFIG_COMMAND } from './mcp-config-command.ts';
import { nearest } from './suggest.ts';
import { TOOLS_COMMAND } from './tools-command.ts';

const COMPLETION_COMMAND: Command = {
  summary: 'print a shell completion script for bash, zsh or fish',
  usage: 'svc completion bash|zsh|fish',
  details: `  bash                source <(svc completion bash)   (or save it in ~/.local/share/bash-completion/completions/svc)
  zsh                 source <(svc completion zsh)    (or save it as _svc in a folder of $fpath)
  fish                svc completion fish > ~/.config/fish/completions/svc.fish`,
  options: {},
  subcommands: SHELLS,
  async run(io, _v, positionals) {
    const shell = positionals[0];
    if (!shell || !(SHELLS as readonly string[]).includes(shell)) {
      const near = shell ? nearest(shell, SHELLS) : null;
      throw new CliError(
        `Which shell? ${SHELLS.join(', ')}.${near ? ` Did you mean ${near}?` : ''}`,
        EXIT.usage,
        'Usage: svc completion bash|zsh|fish',
      );
    }
    io.out(completionScript(shell as Shell, COMMANDS, GLOBAL).trimEnd());
  },
};

export const COMMANDS: Record<string, Command> = {
  ...ACCOUNT_COMMANDS,
  use: USE_COMMAND,
  call: CALL_COMMAND,
  tools: TOOLS_COMMAND,
  api: API_COMMAND,
  ...MANAGE_COMMANDS,
  audit: withAuditVerify(MANAGE_COMMANDS['audit']!),
  upstreams: UPSTREAMS_COMMAND,
  approvals: APPROVALS_COMMAND,
  clients: CLIENTS_COMMAND,
  'mcp-config': MCP_CONFIG_COMMAND,
  doctor: DOCTOR_COMMAND,
  completion: COMPLETION_COMMAND,
};
