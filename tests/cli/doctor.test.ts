/**
 * `svc doctor` end to end (docs/cli.md "svc doctor"): the installed bin against servers broken one
 * way each (a table of breakages, tests/support/broken-mcp.ts), each row stating what every client
 * family would do; against a started svc stack; and, for a few rows, the real TypeScript SDK
 * clients (1.x and 2.x) driven as far as they go, to check the doctor's verdicts for them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { auth as authV2 } from '@modelcontextprotocol/client';
import { auth as authV1 } from '@modelcontextprotocol/sdk/client/auth.js';
import { startBrokenMcp, type Breakage } from '../support/broken-mcp.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { BIN, runToEnd, tempDir } from './support.ts';

/** A family's expected verdict: signs in, signs in once a client is registered by hand, or stops at this step. */
type Expected = 'in' | 'setup' | string;

interface Verdict {
  family: string;
  ok: boolean;
  setup?: string;
  path: string[];
  stoppedAt?: string;
  reason?: string;
  remedy?: string;
}
interface Report {
  steps: { mark: string; what: string; url?: string; seen: string }[];
  families: Verdict[];
  would_sign_in: number;
}

const FAMILIES = ['claude', 'chatgpt', 'vscode', 'cursor', 'sdk-v1', 'sdk-v2', 'inspector'] as const;
type Family = (typeof FAMILIES)[number];

/** Every family as `all`, but those named. */
const verdicts = (all: Expected, but: Partial<Record<Family, Expected>> = {}): Record<Family, Expected> =>
  Object.fromEntries(FAMILIES.map((f) => [f, but[f] ?? all])) as Record<Family, Expected>;

const PRM = 'protected-resource metadata';
const AS = 'authorization server metadata';
/** The families that take the MCP origin as authorization server when they find no metadata. */
const ORIGIN_FALLBACK = { vscode: 'in', cursor: 'in', 'sdk-v1': 'in', 'sdk-v2': 'in', inspector: 'in' } as const;

interface Case {
  name: string;
  breakage: Partial<Breakage>;
  expected: Record<Family, Expected>;
  exit: number;
  args?: string[];
  /** A further check of the report. */
  check?: (r: Report) => void;
}

const CASES: Case[] = [
  { name: 'a healthy server', breakage: {}, expected: verdicts('in'), exit: 0 },
  {
    name: 'no metadata at the path-inserted location (nor the root)',
    breakage: { prmAt: [] },
    expected: verdicts(PRM, ORIGIN_FALLBACK),
    exit: 1,
  },
  {
    name: 'metadata only at the root, a challenge naming none',
    breakage: { prmAt: ['root'], challengeNamesPrm: false },
    expected: verdicts('in'),
    exit: 0,
  },
  {
    name: 'a 401 without resource_metadata',
    breakage: { challengeNamesPrm: false },
    expected: verdicts('in'),
    exit: 0,
    check: (r) => assert.equal(r.steps.find((s) => s.what === 'POST without a credential')?.mark, 'bad'),
  },
  {
    name: 'an authorization server with OpenID discovery but no RFC 8414 metadata',
    breakage: { asMetadata: ['oidc'] },
    expected: verdicts('in'),
    exit: 0,
    check: (r) => assert.ok(r.families.every((v) => v.path.includes('OpenID discovery'))),
  },
  {
    name: 'an RFC 8414 URL answering 500',
    breakage: { asMetadata: ['oauth-500', 'oidc'] },
    expected: verdicts('in', { 'sdk-v1': AS, 'sdk-v2': AS, inspector: AS }),
    exit: 1,
  },
  {
    name: 'metadata without issuer nor iss',
    breakage: { issuer: 'missing' },
    expected: verdicts('in', { 'sdk-v1': AS, 'sdk-v2': AS, inspector: AS }),
    exit: 1,
  },
  { name: 'metadata whose issuer is another URL', breakage: { issuer: 'wrong' }, expected: verdicts('in', { 'sdk-v2': AS }), exit: 1 },
  { name: 'no CORS', breakage: { cors: false }, expected: verdicts('in', { inspector: 'the MCP endpoint' }), exit: 1 },
  {
    name: 'no DCR and no CIMD',
    breakage: { dcr: false, cimd: false },
    expected: verdicts('setup', { chatgpt: 'client registration' }),
    exit: 1,
  },
  { name: 'a wrong resource in the metadata', breakage: { resource: 'wrong' }, expected: verdicts(PRM, { cursor: 'in' }), exit: 1 },
  ...(['redirect-loop', 'other-host', 'huge'] as const).map((prmPath): Case => ({
    name: `metadata behind ${prmPath === 'huge' ? 'a 2 MiB body' : prmPath === 'other-host' ? 'a redirect to another host' : 'a redirect loop'}`,
    breakage: { prmPath },
    expected: verdicts(PRM, ORIGIN_FALLBACK),
    exit: 1,
    check: (r) => {
      const seen = r.steps.find((s) => s.what === 'metadata at the path-inserted URL')?.seen ?? '';
      const words = {
        'redirect-loop': /redirects back to/,
        'other-host': /elsewhere\.example\/prm \(another origin: not followed\)/,
        huge: /body over \d+ bytes/,
      };
      assert.match(seen, words[prmPath]);
    },
  })),
  {
    name: 'a server that never answers',
    breakage: { slow: true },
    expected: verdicts('the MCP endpoint'),
    exit: 4,
    args: ['--timeout', '300'],
  },
  {
    name: 'a Server Card listing only 2026-07-28',
    breakage: { cardVersions: ['2026-07-28'] },
    expected: verdicts('protocol version', { 'sdk-v2': 'in' }),
    exit: 1,
  },
];

let configDir: string;
before(async () => (configDir = await tempDir('doctor')));

async function doctor(url: string, args: string[] = []) {
  const run = await runToEnd(BIN.svc, ['doctor', url, '--json', ...args], { SVC_CONFIG_DIR: configDir, HOME: configDir });
  assert.equal(run.stderr, '', run.stderr);
  return { code: run.code, report: JSON.parse(run.stdout) as Report };
}

function outcome(v: Verdict): Expected {
  if (!v.ok) return v.stoppedAt ?? '?';
  return v.setup ? 'setup' : 'in';
}

describe('svc doctor against broken servers', () => {
  for (const c of CASES) {
    test(c.name, async () => {
      const server = await startBrokenMcp(c.breakage);
      try {
        const { code, report } = await doctor(server.url, c.args);
        const got = Object.fromEntries(report.families.map((v) => [v.family, outcome(v)]));
        assert.deepEqual(got, c.expected);
        for (const v of report.families.filter((x) => !x.ok)) assert.ok(v.reason && v.remedy, `${v.family} says why and what to do`);
        assert.equal(code, c.exit);
        c.check?.(report);
      } finally {
        await server.close();
      }
    });
  }
});

/** A headless SDK OAuth client (the same shape for both lines): it registers, then is sent to authorize; where it goes is recorded. */
function sdkProvider() {
  let client: { client_id: string } | undefined;
  let verifier = '';
  return {
    redirectedTo: null as URL | null,
    get redirectUrl() {
      return 'http://127.0.0.1:1/callback';
    },
    get clientMetadata() {
      return { client_name: 'doctor cross-check', redirect_uris: ['http://127.0.0.1:1/callback'], token_endpoint_auth_method: 'none' };
    },
    clientInformation: () => client,
    saveClientInformation: (c: { client_id: string }) => void (client = c),
    tokens: () => undefined,
    saveTokens: () => undefined,
    redirectToAuthorization(url: URL) {
      this.redirectedTo = url;
    },
    saveCodeVerifier: (v: string) => void (verifier = v),
    codeVerifier: () => verifier,
  };
}

type Provider = ReturnType<typeof sdkProvider>;
const SDK_LINES: { family: Family; auth: (p: Provider, serverUrl: string) => Promise<string> }[] = [
  { family: 'sdk-v1', auth: (p, serverUrl) => authV1(p as Parameters<typeof authV1>[0], { serverUrl }) },
  { family: 'sdk-v2', auth: (p, serverUrl) => authV2(p as Parameters<typeof authV2>[0], { serverUrl }) },
];
const CROSS_CHECKED = [
  'a healthy server',
  'a wrong resource in the metadata',
  'an RFC 8414 URL answering 500',
  'no metadata at the path-inserted location (nor the root)',
  'metadata without issuer nor iss',
  'metadata whose issuer is another URL',
  'metadata behind a redirect loop',
];

describe("the real SDK clients agree with the doctor's verdicts for them", () => {
  for (const c of CASES.filter((x) => CROSS_CHECKED.includes(x.name))) {
    test(c.name, async () => {
      const server = await startBrokenMcp(c.breakage);
      try {
        const { report } = await doctor(server.url);
        for (const line of SDK_LINES) {
          const doctorSays = outcome(report.families.find((v) => v.family === line.family)!);
          const provider = sdkProvider();
          const sdkSays = await line.auth(provider, server.url).then(
            (r) => (r === 'REDIRECT' && provider.redirectedTo ? 'in' : `unexpected ${r}`),
            (err: Error) => `refused: ${err.message}`,
          );
          assert.equal(sdkSays === 'in', doctorSays === 'in', `${line.family}: doctor ${doctorSays}; SDK ${sdkSays}`);
          if (sdkSays === 'in') assert.equal(provider.redirectedTo!.origin, server.origin);
        }
      } finally {
        await server.close();
      }
    });
  }
});

describe('svc doctor against svc', () => {
  let stack: Stack;
  before(async () => (stack = await startStack()));
  after(() => stack.close());

  test('every family signs in, the browser one too; the Server Card is found', async () => {
    const { code, report } = await doctor(`${stack.baseUrl}/mcp/doctor-demo`);
    const got = Object.fromEntries(report.families.map((v) => [v.family, outcome(v)]));
    // The registration endpoint answers the browser's CORS preflight (docs/auth-service.md "Client registration").
    assert.deepEqual(got, verdicts('in'));
    assert.equal(code, 0);
    const cards = report.steps.filter((s) => s.what.startsWith('Server Card'));
    assert.deepEqual(
      cards.map((s) => s.mark),
      ['ok', 'ok'],
    );
    assert.ok(report.families.filter((v) => v.ok).every((v) => v.path.includes("metadata from the 401 challenge's resource_metadata")));
  });

  test('--client keeps to the families named; the exit code follows them', async () => {
    const { code, report } = await doctor(`${stack.baseUrl}/mcp/doctor-demo`, ['--client', 'claude,sdk-v2']);
    assert.deepEqual(
      report.families.map((v) => v.family),
      ['claude', 'sdk-v2'],
    );
    assert.equal(code, 0);
  });

  test('the human report names each step and each family, and an unknown family is a usage error', async () => {
    const run = await runToEnd(BIN.svc, ['doctor', '--project', 'doctor-demo'], {
      SVC_CONFIG_DIR: configDir,
      HOME: configDir,
      SVC_BASE_URL: stack.baseUrl,
    });
    assert.match(run.stdout, /✓ POST without a credential/);
    assert.match(run.stdout, /✓ MCP Inspector .* would sign in/);
    assert.match(run.stdout, /7 of 7 client families would sign in\./);
    const bad = await runToEnd(BIN.svc, ['doctor', `${stack.baseUrl}/mcp/x`, '--client', 'claud'], {
      SVC_CONFIG_DIR: configDir,
      HOME: configDir,
    });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /Unknown client family "claud"/);
  });
});
