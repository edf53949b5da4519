/**
 * `svc request-access` (docs/cli.md "svc request-access"): asks a project's admins for a level with
 * a reason, through the management API's requestAccess operation (docs/management.md "Access
 * request lifecycle"), with the current key.
 */
import { LEVELS } from '@svc/management/contract';
import { CliError, EXIT } from './errors.ts';
import { answer, api, type Caller } from './manage-common.ts';
import type { Io } from './run.ts';

export async function requestAccessCommand(io: Io, c: Caller, v: Record<string, unknown>): Promise<void> {
  // The project is named: asking for access is about a project this key may not reach, so no default applies.
  const slug = typeof v['project'] === 'string' ? v['project'] : '';
  if (!slug) throw new CliError('Which project? Give --project <slug>.', EXIT.usage, 'Run "svc projects" for the ones you can reach.');
  const level = LEVELS.find((l) => typeof v['level'] === 'string' && l === v['level'].toUpperCase());
  if (!level) throw new CliError(`Give --level ${LEVELS.join('|')}: the level you need.`, EXIT.usage);
  const reason = typeof v['reason'] === 'string' ? v['reason'].trim() : '';
  if (!reason) throw new CliError('Give --reason "...": the admins read it to decide.', EXIT.usage);
  const r = await answer(api(c).requestAccess({ params: { project: slug }, body: { level, reason } }), 'request-access');
  if (r.status === 'unchanged')
    return io.result(r, [`You already have ${r.current_level} on ${r.project}, which covers ${r.level}: nothing to ask.`]);
  const told = r.admins_emailed
    ? "The project's admins were emailed."
    : r.updated
      ? 'Your pending request was updated; the admins were not emailed again (at most one email an hour).'
      : 'The admins see it in the dashboard and with svc requests list (this server sent no email).';
  return io.result(r, [
    `Access request ${r.id ?? ''} for ${r.level} on ${r.project} is pending (you have ${r.current_level}). ${told}`,
    'Follow it with svc requests mine.',
  ]);
}
