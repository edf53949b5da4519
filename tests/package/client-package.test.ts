/**
 * @svc/client as an adopter gets it (docs/publishing.md "@svc/client"): packed, installed into a
 * project outside the workspace, its types checked by tsc there (a wrong body is a type error,
 * the declarations import nothing unpublished), and the compiled program run against the gateway.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { parseCredential } from '@svc/credentials';
import { ROOT, tempDir } from '../cli/support.ts';
import { newPerson, startStack, type Stack } from '../support/stack.ts';
import { NODE_PATH, npm, pack } from './support.ts';

const run = promisify(execFile);

let stack: Stack;
let project: string;
/** The owner's personal key, the program's credential. */
let personal: string;
/** The adopter's project folder. */
let dir: string;

/** The adopter's program: a key created and the keys listed, every value typed by the package. */
const PROGRAM = `import { createClient, type AnswerOf, type OperationOf, type Refusal } from '@svc/client';

const svc = createClient({ baseUrl: process.env['SVC_BASE_URL'] ?? '', apiKey: process.env['SVC_API_KEY'] ?? '' });
const project = process.env['SVC_PROJECT'] ?? '';
const created = await svc.createKey({ params: { project }, body: { name: 'from-client', level: 'EDITOR', expires: '30d' } });
if (!created.ok) throw new Error((created.response.body as Refusal).error.message);
const level: 'VIEWER' | 'EDITOR' | 'ADMIN' = created.body.level;
const listed = await svc.listKeys({ params: { project }, query: { status: 'active' } });
if (!listed.ok) throw new Error(String(listed.status));
const keys: AnswerOf<OperationOf<'listKeys'>>['keys'] = listed.body.keys;
const refused = await svc.listKeys({ params: { project: 'not-a-project-of-mine' } });
console.log(JSON.stringify({ status: created.status, key: created.body.key, level, names: keys.map((k) => k.name), refused: refused.status }));
`;

/** The same call with a level the contract does not declare. */
const WRONG = `import { createClient } from '@svc/client';

const svc = createClient({ baseUrl: 'http://localhost:3000', apiKey: 'svc-x' });
await svc.createKey({ params: { project: 'p' }, body: { name: 'x', level: 'OWNER' } });
`;

/**
 * A tsconfig of an ordinary Node project: strict, nodenext, Node's types (the workspace's
 * @types/node). Compiling the program checks the package's .d.ts too; the wrong call skips that (once is enough).
 */
const tsconfig = (file: string, skipLibCheck: boolean) => ({
  compilerOptions: {
    target: 'es2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    outDir: 'out',
    typeRoots: [join(ROOT, 'node_modules/@types')],
    types: ['node'],
    skipLibCheck,
  },
  files: [file],
});

/** tsc of the workspace on `config` in `dir`; its exit code and what it printed. */
async function tsc(dir: string, config: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', config], { cwd: dir });
    return { code: 0, out: stdout };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string };
    return { code: failed.code ?? 1, out: failed.stdout ?? '' };
  }
}

before(async () => {
  stack = await startStack();
  const owner = await newPerson(stack, 'pkg-client');
  project = owner.slug;
  personal = (await stack.accounts.keys.createUserKey({ userId: owner.user.id })).key;
  dir = await tempDir('client-project');
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'adopter', private: true, type: 'module' }));
  const tarball = await pack('client', await tempDir('client-pack'));
  await npm(['install', tarball], dir, join(dir, '.npm'));
  await writeFile(join(dir, 'main.ts'), PROGRAM);
  await writeFile(join(dir, 'wrong.ts'), WRONG);
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig('main.ts', false)));
  await writeFile(join(dir, 'tsconfig.wrong.json'), JSON.stringify(tsconfig('wrong.ts', true)));
});
after(() => stack.close());

test('the declarations are one self-contained file, and the package has no dependencies', async () => {
  const installed = join(dir, 'node_modules/@svc/client');
  const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as { dependencies?: object };
  assert.equal(manifest.dependencies, undefined);
  const dts = await readFile(join(installed, 'dist/index.d.ts'), 'utf8');
  assert.doesNotMatch(dts, /^\s*(import|export)\b[^;]*\bfrom\s/m, 'the .d.ts imports and re-exports nothing');
  assert.doesNotMatch(dts, /import\(/, 'the .d.ts names no other module');
  assert.doesNotMatch(await readFile(join(installed, 'dist/index.js'), 'utf8'), /from ["']@svc\//);
});

test('a body the contract does not declare fails to compile', async () => {
  const r = await tsc(dir, 'tsconfig.wrong.json');
  assert.notEqual(r.code, 0, 'tsc accepted a level that is not declared');
  assert.match(r.out, /wrong\.ts\(4,\d+\): error TS2322: Type '"OWNER"' is not assignable/);
});

test('a typed program compiles, then creates and lists keys on the gateway', async () => {
  const compiled = await tsc(dir, 'tsconfig.json');
  assert.equal(compiled.code, 0, compiled.out);
  const { stdout } = await run(process.execPath, [join(dir, 'out/main.js')], {
    cwd: dir,
    env: { PATH: NODE_PATH, SVC_BASE_URL: stack.baseUrl, SVC_API_KEY: personal, SVC_PROJECT: project },
  });
  const out = JSON.parse(stdout) as { status: number; key: string; level: string; names: string[]; refused: number };
  assert.equal(out.status, 201);
  assert.equal(parseCredential(out.key)?.kind, 'project_key');
  assert.equal(out.level, 'EDITOR');
  assert.deepEqual(out.names, ['from-client']);
  assert.equal(out.refused, 404);
});
