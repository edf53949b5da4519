/**
 * The CLI's files in the user's config directory (SVC_CONFIG_DIR, else $XDG_CONFIG_HOME/svc, else
 * ~/.config/svc): the stored personal key, `credentials.json`, and the settings, `config.json`
 * (the default project per gateway). The directory is 0700 and each file 0600, written to a
 * temporary file first and renamed, so a reader never sees half a file. The key is the one secret
 * here; everything else is for display.
 */
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseCredential } from '@svc/credentials';
import { CliError, EXIT } from './errors.ts';

export interface StoredKey {
  version: 1;
  key: string;
  expires_at: string;
  user: { id: string; email: string };
  base_url: string;
  auth_url: string;
  saved_at: string;
}

function configDir(env: NodeJS.ProcessEnv): string {
  if (env['SVC_CONFIG_DIR']) return env['SVC_CONFIG_DIR'];
  return join(env['XDG_CONFIG_HOME'] || join(homedir(), '.config'), 'svc');
}

export function credentialsFile(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'credentials.json');
}

const corrupt = (file: string, why: string) =>
  new CliError(`${file} is not a valid svc credentials file (${why}).`, EXIT.auth, 'Run "svc logout" to remove it, then "svc login".');

function isStoredKey(v: unknown): v is StoredKey {
  if (!v || typeof v !== 'object') return false;
  const s = v as Record<string, unknown>;
  const user = s['user'] as Record<string, unknown> | undefined;
  return (
    s['version'] === 1 &&
    typeof s['key'] === 'string' &&
    parseCredential(s['key'])?.kind === 'user_key' &&
    typeof s['expires_at'] === 'string' &&
    typeof s['base_url'] === 'string' &&
    typeof s['auth_url'] === 'string' &&
    !!user &&
    typeof user['email'] === 'string'
  );
}

/** The stored key, or null when there is none; a file that cannot be read or understood is an error naming it. */
export async function readStoredKey(env: NodeJS.ProcessEnv): Promise<StoredKey | null> {
  const file = credentialsFile(env);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'EACCES' || code === 'EPERM') {
      throw new CliError(
        `Cannot read ${file}: permission denied.`,
        EXIT.auth,
        'It should belong to you with mode 0600; or run "svc login" again.',
      );
    }
    if (code === 'EISDIR') throw corrupt(file, 'it is a directory');
    throw new CliError(`Cannot read ${file}: ${code ?? String(err)}.`, EXIT.auth);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw corrupt(file, 'it is not JSON');
  }
  if (!isStoredKey(parsed)) throw corrupt(file, 'fields are missing or the key is not a personal svc-user- key');
  return parsed;
}

/** Writes `value` as JSON to `file` in the config directory, 0600, whole or not at all. */
async function writeConfigFile(env: NodeJS.ProcessEnv, file: string, value: unknown): Promise<string> {
  const dir = configDir(env);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  await chmod(temp, 0o600);
  await rename(temp, file);
  return file;
}

export async function writeStoredKey(env: NodeJS.ProcessEnv, value: StoredKey): Promise<string> {
  return writeConfigFile(env, credentialsFile(env), value);
}

/** The settings `svc use` keeps: the default project of each gateway (its origin). */
export interface Settings {
  version: 1;
  default_projects: Record<string, string>;
}

export function settingsFile(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'config.json');
}

/** The settings; none yet, or a file that is not ours, reads as no settings (nothing in it is a secret or needed). */
export async function readSettings(env: NodeJS.ProcessEnv): Promise<Settings> {
  const parsed = await readFile(settingsFile(env), 'utf8')
    .then((text) => JSON.parse(text) as unknown)
    .catch(() => null);
  const projects = (parsed as { default_projects?: unknown } | null)?.default_projects;
  const valid = projects && typeof projects === 'object' && Object.values(projects).every((p) => typeof p === 'string');
  return { version: 1, default_projects: valid ? { ...(projects as Record<string, string>) } : {} };
}

export async function writeSettings(env: NodeJS.ProcessEnv, value: Settings): Promise<string> {
  return writeConfigFile(env, settingsFile(env), value);
}

/** Removes the stored key (a corrupt file too). Returns whether there was one. */
export async function removeStoredKey(env: NodeJS.ProcessEnv): Promise<boolean> {
  const file = credentialsFile(env);
  try {
    await stat(file);
  } catch {
    return false;
  }
  await rm(file, { force: true, recursive: true });
  return true;
}

/** Where a command's key comes from: SVC_API_KEY first, then the stored key. */
export interface Credential {
  key: string;
  source: 'SVC_API_KEY' | string;
  stored: StoredKey | null;
}

export async function credentialOf(env: NodeJS.ProcessEnv): Promise<Credential> {
  const fromEnv = env['SVC_API_KEY']?.trim();
  if (fromEnv) {
    if (!parseCredential(fromEnv)) {
      throw new CliError(
        'SVC_API_KEY does not hold an svc key (wrong prefix, length or checksum).',
        EXIT.auth,
        'Copy the key again, whole.',
      );
    }
    return { key: fromEnv, source: 'SVC_API_KEY', stored: null };
  }
  const stored = await readStoredKey(env);
  if (!stored) throw new CliError('Not signed in.', EXIT.auth, 'Run "svc login", or set SVC_API_KEY.');
  return { key: stored.key, source: credentialsFile(env), stored };
}
