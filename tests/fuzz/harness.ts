/**
 * The fuzz suite's stack and oracle: both services on one private Redis, seeded with a project,
 * keys of every kind, a registered client and a pending device code; a raw HTTP sender (node:http,
 * so headers and bodies go out exactly as generated); and the checks every answer must pass
 * (docs/security.md "Fuzzing"): no 5xx (Redis is up throughout), no stack trace or internal detail
 * in the body, an answer within ANSWER_TIMEOUT_MS.
 */
import { Agent, request } from 'node:http';
import { startStack, newPerson, type Stack } from '../support/stack.ts';
import type { FuzzRequest, Seeds } from './requests.ts';

/** Longer than any honest request takes on a loaded machine; a request past it is a hang. */
const ANSWER_TIMEOUT_MS = 10_000;

/** What an answer must never contain: stack frames, file paths, library and Redis error texts. */
const LEAKS: [string, RegExp][] = [
  ['stack frame', /\n\s+at \S.*:\d+:\d+\)?/],
  ['file path', /(node_modules|\/work\/|file:\/\/|[\w-]+\.(ts|js):\d+)/],
  ['Redis error', /(ReplyError|WRONGTYPE|NOSCRIPT|ERR (wrong|syntax|unknown)|ECONNREFUSED|Connection is closed|Command timed out)/],
  ['JavaScript error', /\b(TypeError|ReferenceError|RangeError|URIError|Cannot read propert|is not a function|undefined is not)\b/],
];

export interface Answer {
  status: number;
  body: string;
  ms: number;
}

export interface FuzzStack {
  stack: Stack;
  seeds: Seeds;
  send(req: FuzzRequest): Promise<Answer>;
  close(): Promise<void>;
}

export async function startFuzzStack(): Promise<FuzzStack> {
  // Limits raised so that most requests reach past the throttles; the throttles themselves are
  // tested in services/auth-service/test/guessing-races.test.ts.
  const wide = { limit: 1_000_000, windowSeconds: 60 };
  const stack = await startStack(
    { RATE_LIMIT_SCALE: '100000' },
    {
      authLimits: {
        signInPerIp: wide,
        signInPerAccount: wide,
        signInAccountBackoff: { freeFailures: 1_000_000, firstWaitSeconds: 1, maxWaitSeconds: 1, memorySeconds: 60 },
        signUpPerIp: wide,
        signUpPerEmail: wide,
        resetPerIp: wide,
        resetPerEmail: wide,
        codeEntryPerIp: wide,
        registrationPerIp: wide,
      },
    },
  );
  const person = await newPerson(stack, 'fuzz');
  await stack.accounts.workspaces.setPlan(person.user.workspace, 'TEAM', true);
  const keys = await Promise.all(
    (['VIEWER', 'EDITOR', 'ADMIN'] as const).map(
      async (level) =>
        (
          await stack.accounts.keys.createProjectKey({
            project: person.slug,
            workspace: person.user.workspace,
            level,
            name: `fuzz ${level}`,
          })
        ).key,
    ),
  );
  const bot = await stack.accounts.bots.create({ workspace: person.user.workspace, name: 'fuzz bot' });
  await stack.accounts.bots.grant(bot.bot.id, person.slug, 'EDITOR');
  keys.push(bot.key.key, (await stack.accounts.keys.createUserKey({ userId: person.user.id })).key);
  const registered = (await (
    await fetch(`${stack.authUrl}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/cb'], client_name: 'fuzz client' }),
    })
  ).json()) as { client_id: string };
  const device = (await (
    await fetch(`${stack.authUrl}/api/oauth/device/code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: 'svc-mcp' }),
    })
  ).json()) as { device_code: string; user_code: string };
  const seeds: Seeds = {
    project: person.slug,
    team: person.user.workspace,
    keys,
    clientId: registered.client_id,
    deviceCode: device.device_code,
    userCode: device.user_code,
  };
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const origin = { auth: new URL(stack.authUrl), gateway: new URL(stack.baseUrl) };

  function send(req: FuzzRequest): Promise<Answer> {
    const url = origin[req.service];
    const started = performance.now();
    const body = req.body === undefined ? undefined : Buffer.from(req.body);
    return new Promise<Answer>((resolve, reject) => {
      const r = request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method: req.method,
          path: req.path,
          headers: { ...req.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
          timeout: ANSWER_TIMEOUT_MS,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }),
          );
          res.on('error', reject);
        },
      );
      r.on('timeout', () => r.destroy(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms (a hang)`)));
      r.on('error', reject);
      r.end(body);
    });
  }

  return {
    stack,
    seeds,
    send,
    async close() {
      agent.destroy();
      await stack.close();
    },
  };
}

/** The problems of one answer: empty when it is acceptable. */
export function problemsOf(answer: Answer): string[] {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`status ${answer.status}`);
  for (const [name, pattern] of LEAKS) {
    const m = pattern.exec(answer.body);
    if (m) problems.push(`${name} in the body: ${JSON.stringify(answer.body.slice(Math.max(0, m.index - 60), m.index + 80))}`);
  }
  return problems;
}

/** A request shown short enough to read in a failure message. */
export function describe(req: FuzzRequest): string {
  const body = req.body === undefined ? '' : ` body=${JSON.stringify(req.body.slice(0, 300))}`;
  return `${req.service} ${req.method} ${req.path.slice(0, 200)} headers=${JSON.stringify(req.headers).slice(0, 600)}${body}`;
}
