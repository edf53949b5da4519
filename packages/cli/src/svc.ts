/**
 * svc: sign in with the device flow (a personal key for every project you can access), see who
 * you are, list projects and tools, call a tool, manage a project, print MCP client configuration.
 * docs/cli.md describes it. The commands are declared in commands.ts; this is the dispatcher: it
 * parses the command line against the declaration, and an unknown command, subcommand or option
 * is a usage error that names the nearest one that exists.
 */
import { parseArgs } from 'node:util';
import { GLOBAL, type Command } from './command.ts';
import { COMMANDS } from './commands.ts';
import { CliError, EXIT } from './errors.ts';
import { serverHelp } from './hosts.ts';
import { KEY_VARIABLE } from './mcp-config.ts';
import { run } from './run.ts';
import { nearest } from './suggest.ts';
import { VERSION } from './version.ts';

function details(command: Command, env: NodeJS.ProcessEnv): string {
  const text = typeof command.details === 'function' ? command.details(env) : command.details;
  return text ? `${text}\n` : '';
}

function mainHelp(env: NodeJS.ProcessEnv): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return [
    `svc ${VERSION}: the command-line client of svc`,
    '',
    'Usage: svc <command> [options]',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    'Options of every command:',
    serverHelp(env),
    '',
    `Credentials: $${KEY_VARIABLE} first, then the key stored by "svc login" (in $SVC_CONFIG_DIR,`,
    '$XDG_CONFIG_HOME/svc or ~/.config/svc). "svc <command> --help" describes one command.',
    'Shell completion: svc completion bash|zsh|fish.',
  ].join('\n');
}

const didYouMean = (word: string, known: readonly string[]) => {
  const near = nearest(word, known);
  return near ? ` Did you mean "${near}"?` : '';
};

/** A parseArgs refusal as a usage error; an unknown option names the nearest the command takes. */
function usageError(err: unknown, name: string, command: Command): CliError {
  const e = err as { code?: string; message: string };
  const unknown = /Unknown option '(-{1,2}[^']+)'/.exec(e.message)?.[1];
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown) {
    const flags = Object.keys({ ...GLOBAL, ...command.options }).map((f) => `--${f}`);
    return new CliError(`Unknown option ${unknown} for svc ${name}.${didYouMean(unknown, flags)}`, EXIT.usage, `Usage: ${command.usage}`);
  }
  return new CliError(e.message, EXIT.usage, `Usage: ${command.usage}`);
}

await run(async (io, argv) => {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') return io.out(mainHelp(io.env));
  if (name === '--version' || name === 'version') return io.out(VERSION);
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command)
    throw new CliError(
      `Unknown command "${name}".${didYouMean(name, Object.keys(COMMANDS))}`,
      EXIT.usage,
      'Run "svc --help" for the list.',
    );
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: { ...GLOBAL, ...command.options }, allowPositionals: true, strict: true });
  } catch (err) {
    throw usageError(err, name, command);
  }
  if (parsed.values['help']) {
    return io.out(`${command.summary}\n\nUsage: ${command.usage}\n\nOptions:\n${details(command, io.env)}${serverHelp(io.env)}`);
  }
  const sub = parsed.positionals[0];
  if (command.subcommands && sub !== undefined && !command.subcommands.includes(sub))
    throw new CliError(
      `Unknown subcommand "${sub}" for svc ${name}.${didYouMean(sub, command.subcommands)}`,
      EXIT.usage,
      `Use svc ${name} ${command.subcommands.join('|')}; "svc ${name} --help" says more.`,
    );
  io.json = parsed.values['json'] === true;
  await command.run(io, parsed.values, parsed.positionals);
});
