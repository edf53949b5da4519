/**
 * The three files create-svc keeps in a project folder: `.env` (the key, mode 0600), `.gitignore`
 * (so `.env` is never committed) and `.mcp.json` (the MCP client reads the key from the
 * environment). Each is edited in place: other lines and entries are kept, and running again
 * replaces our lines instead of adding them twice.
 */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError, EXIT } from './errors.ts';
import { KEY_VARIABLE, mergeMcpJson } from './mcp-config.ts';

const KEY_LINE = new RegExp(`^\\s*(export\\s+)?${KEY_VARIABLE}\\s*=`);

async function readOptional(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    throw new CliError(`Cannot read ${file}: ${code === 'EACCES' ? 'permission denied' : String(code)}.`, EXIT.failed);
  }
}

async function write(file: string, text: string, mode: number): Promise<void> {
  try {
    await writeFile(file, text, { mode });
    await chmod(file, mode);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliError(`Cannot write ${file}: ${code === 'EACCES' ? 'permission denied' : String(code)}.`, EXIT.failed);
  }
}

const withNewline = (text: string) => (text === '' || text.endsWith('\n') ? text : `${text}\n`);

/** The key currently in `.env`, if any. */
export async function keyInEnvFile(dir: string): Promise<string | null> {
  const text = await readOptional(join(dir, '.env'));
  const line = text?.split('\n').find((l) => KEY_LINE.test(l));
  if (!line) return null;
  return (
    line
      .slice(line.indexOf('=') + 1)
      .trim()
      .replace(/^["']|["']$/g, '') || null
  );
}

/** Sets SVC_API_KEY in `.env` (one line, other lines kept); the file ends up 0600. */
export async function writeEnvFile(dir: string, key: string): Promise<{ file: string; created: boolean }> {
  const file = join(dir, '.env');
  const text = await readOptional(file);
  const lines = (text ?? '').split('\n');
  if (lines.at(-1) === '') lines.pop();
  const kept = lines.filter((l) => !KEY_LINE.test(l));
  const at = lines.findIndex((l) => KEY_LINE.test(l));
  kept.splice(at === -1 ? kept.length : at, 0, `${KEY_VARIABLE}=${key}`);
  await write(file, `${kept.join('\n')}\n`, 0o600);
  return { file, created: text === null };
}

/** Makes sure `.env` is ignored by git; returns what was done. */
export async function ensureGitignore(dir: string): Promise<{ file: string; action: 'created' | 'added' | 'present' }> {
  const file = join(dir, '.gitignore');
  const text = await readOptional(file);
  const ignored = (text ?? '').split('\n').some((l) => ['.env', '/.env', '.env*', '/.env*', '*.env'].includes(l.trim()));
  if (ignored) return { file, action: 'present' };
  await write(file, `${withNewline(text ?? '')}.env\n`, 0o644);
  return { file, action: text === null ? 'created' : 'added' };
}

export interface McpJson {
  file: string;
  existing: unknown;
  created: boolean;
}

/**
 * Reads `.mcp.json` before anything else happens, so a file that is not JSON stops create-svc
 * before the browser step instead of after the person approved a project.
 */
export async function readMcpJson(dir: string): Promise<McpJson> {
  const file = join(dir, '.mcp.json');
  const text = await readOptional(file);
  let existing: unknown = {};
  if (text !== null && text.trim() !== '') {
    try {
      existing = JSON.parse(text);
    } catch {
      throw new CliError(`${file} is not valid JSON; fix or remove it and run create-svc again.`, EXIT.usage);
    }
  }
  return { file, existing, created: text === null };
}

/** Adds or replaces our server in the `.mcp.json` read before, keeping every other server. */
export async function writeMcpJson(read: McpJson, endpoint: string, slug: string): Promise<{ file: string; created: boolean }> {
  await write(read.file, `${JSON.stringify(mergeMcpJson(read.existing, endpoint, slug), null, 2)}\n`, 0o644);
  return { file: read.file, created: read.created };
}
