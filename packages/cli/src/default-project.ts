/**
 * The project a command acts on (docs/cli.md "The project"): `--project` always; else the default
 * `svc use` stored for this gateway; else, when the key reaches exactly one project, that one.
 * Anything else asks for `--project`, naming the projects it could be.
 */
import type { Command } from './command.ts';
import { callerOf } from './command.ts';
import { CliError, EXIT } from './errors.ts';
import { refusal, requestJson } from './http.ts';
import type { Caller, Options } from './manage-common.ts';
import { nearest } from './suggest.ts';
import { readSettings, settingsFile, writeSettings } from './store.ts';
import { columns } from './table.ts';

export interface ProjectAccess {
  slug: string;
  workspace: string;
  role: string;
}

/** The projects the current key reaches (GET /api/v1/projects, an account route). */
export async function projectsOf(c: Caller): Promise<ProjectAccess[]> {
  const res = await requestJson(`${c.base}/api/v1/projects`, { headers: { 'X-API-Key': c.cred.key } });
  if (res.status !== 200) throw refusal(res, 'projects');
  return (res.body['projects'] ?? []) as ProjectAccess[];
}

const listed = (projects: ProjectAccess[]) =>
  projects
    .slice(0, 10)
    .map((p) => p.slug)
    .join(', ') + (projects.length > 10 ? ', …' : '');

/** The project of this command: --project, the stored default for this gateway, or the only one. */
export async function projectOf(env: NodeJS.ProcessEnv, c: Caller, v: Options): Promise<string> {
  const given = v['project'];
  if (typeof given === 'string' && given !== '') return given;
  const stored = (await readSettings(env)).default_projects[c.base];
  if (stored) return stored;
  const projects = await projectsOf(c);
  if (projects.length === 1) return projects[0]!.slug;
  if (projects.length === 0)
    throw new CliError(
      'This key reaches no project.',
      EXIT.usage,
      'Ask a project admin for access: svc request-access --project <slug> ...',
    );
  throw new CliError(
    `Which project? This key reaches ${projects.length}: ${listed(projects)}.`,
    EXIT.usage,
    'Give --project <slug>, or choose a default once: svc use <slug>.',
  );
}

export const USE_COMMAND: Command = {
  summary: 'choose the project commands use when --project is not given (or show it)',
  usage: 'svc use [<project> | --clear] [--json]',
  details: `  <project>           the slug to use by default with this gateway (checked against svc projects)
  --clear             forget the default
Without --project, a command uses this default, else the only project the key reaches.
--project always wins. The default is kept per gateway in config.json beside the credentials.`,
  options: { clear: { type: 'boolean', default: false } },
  async run(io, v, positionals) {
    const c = await callerOf(io, v);
    const settings = await readSettings(io.env);
    const file = settingsFile(io.env);
    if (v['clear'] === true) {
      delete settings.default_projects[c.base];
      await writeSettings(io.env, settings);
      return io.result({ default_project: null, server: c.base }, [`No default project for ${c.base} any more.`]);
    }
    const slug = positionals[0];
    const projects = await projectsOf(c);
    if (!slug) {
      const current = settings.default_projects[c.base] ?? null;
      const only = projects.length === 1 ? projects[0]!.slug : null;
      return io.result({ default_project: current, only_project: only, server: c.base, projects }, [
        current
          ? `Default project for ${c.base}: ${current} (from ${file}).`
          : only
            ? `No default set; your only project, ${only}, is used.`
            : 'No default project. Choose one: svc use <slug>',
        ...(projects.length
          ? [
              '',
              ...columns(projects, [
                ['slug', 'PROJECT'],
                ['role', 'ROLE'],
                ['workspace', 'WORKSPACE'],
              ]),
            ]
          : []),
      ]);
    }
    if (!projects.some((p) => p.slug === slug)) {
      const near = nearest(
        slug,
        projects.map((p) => p.slug),
      );
      throw new CliError(
        `This key does not reach a project "${slug}".${near ? ` Did you mean ${near}?` : ''}`,
        EXIT.usage,
        projects.length ? `Yours: ${listed(projects)}.` : 'Run "svc projects".',
      );
    }
    settings.default_projects[c.base] = slug;
    await writeSettings(io.env, settings);
    io.result({ default_project: slug, server: c.base, file }, [
      `Commands now use ${slug} when --project is not given (saved in ${file}).`,
    ]);
  },
};
