/** `svc keys` (docs/cli.md "Managing a project"): a project's keys over the management API. */
import { KEY_DEFAULTS } from '@svc/management/contract';
import { CliError, EXIT } from './errors.ts';
import type { Io } from './run.ts';
import { answer, api, given, levelOption, need, shownOnce, type Caller, type Options } from './manage-common.ts';
import { columns, statusStyle } from './table.ts';
import { projectOf } from './default-project.ts';

/** What every subcommand reads: the output, the caller, the options, the project and the command's words (`args[1]` the key's id). */
interface KeyCall {
  io: Io;
  c: Caller;
  v: Options;
  slug: string;
  sub: string;
  id: string | undefined;
  args: string[];
}

async function list({ io, c, v, slug }: KeyCall): Promise<void> {
  const query = { status: given(v, 'status'), q: given(v, 'search') };
  const { keys } = await answer(api(c).listKeys({ params: { project: slug }, query }), 'keys list');
  // A rolled key says what replaced it rather than a second "expiring".
  const rows = keys.map((k) => ({
    ...k,
    shown: k.replaced_by && k.status !== 'revoked' && k.status !== 'expired' ? `replaced by ${k.replaced_by.id}` : k.status,
    // A server older than the allow-list sends none: the list is shown as none, not a crash.
    ips: (k.allowed_ips as string[] | undefined)?.join(' ') || null,
  }));
  return io.result(
    { keys },
    rows.length
      ? columns(rows, [
          ['id', 'ID'],
          ['name', 'NAME', { free: true }],
          ['level', 'LEVEL'],
          ['prefix', 'KEY'],
          ['expires_at', 'EXPIRES', { time: true }],
          ['last_used_at', 'LAST USED', { time: true }],
          ['rate_limit', 'PER MIN'],
          ['ips', 'ALLOWED IPS', { free: true }],
          ['shown', 'STATUS', { style: statusStyle }],
        ])
      : [query.status || query.q ? 'No keys match.' : 'No keys (revoked ones are listed with --status revoked or all).'],
  );
}

async function status({ io, c, slug, sub, id }: KeyCall): Promise<void> {
  if (!id) throw new CliError(`Which key? Give its id: svc keys ${sub} <id> --project <slug> (ids: svc keys list).`, EXIT.usage);
  const params = { project: slug, id };
  const k = await answer(
    sub === 'disable' ? api(c).disableKey({ params, body: {} }) : api(c).enableKey({ params, body: {} }),
    `keys ${sub}`,
  );
  return io.result(k, [
    sub === 'disable'
      ? `Key ${id} disabled; gateways refuse it within a second. Enable it again: svc keys enable ${id} --project ${slug}`
      : `Key ${id} enabled; gateways accept it within a second.`,
  ]);
}

async function note({ io, c, slug, id, args }: KeyCall): Promise<void> {
  const text = args.slice(2).join(' ');
  if (!id)
    throw new CliError('Give the key and its note: svc keys note <id> "<text>" --project <slug> (an empty text clears it).', EXIT.usage);
  const k = await answer(api(c).setKeyNote({ params: { project: slug, id }, body: { note: text } }), 'keys note');
  return io.result(k, [k.note ? `Key ${id}'s note saved.` : `Key ${id}'s note cleared.`]);
}

async function allowIps({ io, c, slug, id, args }: KeyCall): Promise<void> {
  const entries = args.slice(2);
  if (!id || entries.length === 0)
    throw new CliError(
      'Give the key and its addresses: svc keys allow-ips <id> <address|CIDR>... --project <slug>, or anywhere to lift the list.',
      EXIT.usage,
    );
  const allowed = entries.length === 1 && entries[0] === 'anywhere' ? [] : entries.flatMap((e) => e.split(','));
  const k = await answer(api(c).setKeyAllowedIps({ params: { project: slug, id }, body: { allowed_ips: allowed } }), 'keys allow-ips');
  return io.result(k, [
    k.allowed_ips.length ? `Key ${id} is now accepted only from ${k.allowed_ips.join(', ')}.` : `Key ${id} is accepted from any address.`,
  ]);
}

async function create({ io, c, v, slug }: KeyCall): Promise<void> {
  const rateLimit = given(v, 'rate-limit');
  const body = {
    name: need(v, 'name', '--name ci'),
    level: levelOption(v, 'level', KEY_DEFAULTS.level),
    expires: given(v, 'expires') ?? KEY_DEFAULTS.expires,
    ...(rateLimit === undefined ? {} : { rate_limit: rateLimit }),
    ...(given(v, 'note') === undefined ? {} : { note: given(v, 'note') }),
    ...(Array.isArray(v['allow-ip']) ? { allowed_ips: (v['allow-ip'] as string[]).flatMap((e) => e.split(',')) } : {}),
  };
  const k = await answer(api(c).createKey({ params: { project: slug }, body }), 'keys create');
  return shownOnce(io, k, `Key "${k.name}" (${k.level}) created; it expires ${k.expires_at ?? 'never'}.`);
}

async function revoke({ io, c, slug, id }: KeyCall): Promise<void> {
  if (!id) throw new CliError('Which key? Give its id: svc keys revoke <id> --project <slug> (ids: svc keys list).', EXIT.usage);
  await answer(api(c).revokeKey({ params: { project: slug, id } }), 'keys revoke');
  return io.result({ id, revoked: true }, [`Key ${id} revoked; gateways refuse it within a second.`]);
}

async function roll({ io, c, v, slug, id }: KeyCall): Promise<void> {
  if (!id) throw new CliError('Which key? Give its id: svc keys roll <id> --project <slug> (ids: svc keys list).', EXIT.usage);
  const body = { overlap: given(v, 'overlap') ?? KEY_DEFAULTS.overlap };
  const k = await answer(api(c).rollKey({ params: { project: slug, id }, body }), 'keys roll');
  return shownOnce(io, k, `Key rolled; the old one works until ${String(k.old_key_until)}. Deploy the new one before then.`);
}

async function limit({ io, c, slug, id, args }: KeyCall): Promise<void> {
  const value = args[2];
  if (!id || !value)
    throw new CliError(
      'Give the key and its limit: svc keys limit <id> <requests-per-minute|none> --project <slug> (ids: svc keys list).',
      EXIT.usage,
    );
  const rateLimit = value === 'none' ? null : value;
  const k = await answer(api(c).setKeyLimit({ params: { project: slug, id }, body: { rate_limit: rateLimit } }), 'keys limit');
  return io.result(k, [
    k.rate_limit === null
      ? `Key ${id} now has the plan's limit alone.`
      : `Key ${id} may now make ${k.rate_limit} requests per minute (within the plan's limit).`,
  ]);
}

/** Each subcommand of `svc keys`, by the word that names it. */
const SUBCOMMANDS: Record<string, (call: KeyCall) => Promise<void>> = {
  list,
  create,
  revoke,
  roll,
  limit,
  disable: status,
  enable: status,
  note,
  'allow-ips': allowIps,
};

/** The words `svc keys` takes first, for its declaration (completion, help, "did you mean"). */
export const KEY_SUBCOMMANDS = Object.keys(SUBCOMMANDS);

/** `svc keys <subcommand> [id] ... --project <slug>` (list when none is given). */
export async function keysCommand(io: Io, c: Caller, v: Options, args: string[]): Promise<void> {
  const [sub = 'list', id] = args;
  const run = Object.hasOwn(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined;
  if (!run)
    throw new CliError(
      'Use svc keys list|create|revoke|roll|limit|disable|enable|note|allow-ips --project <slug>.',
      EXIT.usage,
      'Run "svc keys --help".',
    );
  return run({ io, c, v, slug: await projectOf(io.env, c, v), sub, id, args });
}
