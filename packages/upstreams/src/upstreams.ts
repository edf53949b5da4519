/**
 * A project's upstream MCP servers as one service (docs/upstream-servers.md): registering one reads
 * its tools at once; a refresh reads them again and merges them into the rows (catalogue.ts); every
 * write compares what it read (store.ts), so two admins, or an admin and a refresh, never lose each
 * other's change. The management layer checks who may call what and records it; the gateway reads
 * the rows and forwards calls.
 */
import { sealValue, unsealValue, type Redis } from '@svc/accounts';
import { K } from '@svc/accounts';
import { UpstreamFailure } from './answer.ts';
import { checkTools, mergeTools } from './catalogue.ts';
import { UpstreamClient, type AllowedBlock, type Endpoint } from './client.ts';
import { UPSTREAM_LIMITS } from './limits.ts';
import { upstreamNameProblem } from './names.ts';
import { ForwardedTokens, type ForwardedClaims } from './signing.ts';
import { FIELDS, UpstreamStore, type RowChange } from './store.ts';
import type { BuiltinToolSetting, ProjectUpstreams, Upstream, UpstreamTool, UpstreamToolPolicy } from './types.ts';

const SEAL_INFO = 'svc upstream credential v1';
/** Headers a static credential may not take: they carry the request itself, or MCP's own. */
const RESERVED_HEADER = /^(host|content-length|content-type|accept|connection|transfer-encoding|mcp-.*|svc-.*)$/i;
const HEADER_NAME = /^[A-Za-z0-9-]{1,64}$/;

/** A refusal of the input, naming the field (the management layer turns it into a 400). */
export class UpstreamInputError extends Error {
  override name = 'UpstreamInputError';
  readonly field: string;
  readonly status: 400 | 404 | 409;
  constructor(message: string, field: string, status: 400 | 404 | 409 = 400) {
    super(message);
    this.field = field;
    this.status = status;
  }
}

export interface UpstreamsOptions {
  redis: Redis;
  pepper: string;
  /** The gateway's public base URL: the issuer of the tokens svc sends upstreams (signing.ts). */
  issuer: string;
  allowedPrivate: readonly AllowedBlock[];
  now?: () => number;
  /** Each exchange with an upstream: its status (null for none) and seconds (ClientOptions.observe). */
  observe?: (status: number | null, seconds: number) => void;
  /** Instead of the guarded client: tests of the bounds only. */
  client?: UpstreamClient;
}

export interface RegisterInput {
  project: string;
  workspace: string;
  name: string;
  url: string;
  timeoutMs?: number;
  credential?: { header: string; value: string } | null;
  addedBy: string;
}

export interface UpstreamChange {
  url?: string;
  timeoutMs?: number;
  credential?: { header: string; value: string } | null;
}

export type ToolChange = Partial<UpstreamToolPolicy> & { acceptChange?: boolean };

/** Who a forwarded request acts for (signing.ts ForwardedClaims). */
export type Acting = Pick<ForwardedClaims, 'subject' | 'clientId' | 'level'>;
/** svc reading an upstream's tools on its own: the least level, no person. */
const SVC_ITSELF: Acting = { subject: 'svc:gateway', clientId: 'svc', level: 'VIEWER' };

/** An upstream with its tools' rows. */
export interface UpstreamView {
  upstream: Upstream;
  tools: UpstreamTool[];
  /** After a refresh: the tools it found new or changed, which wait for an admin. */
  flagged?: string[];
}

export type Upstreams = ReturnType<typeof createUpstreams>;

/** What the operations below share: the store, the client, the signer, the clock and the reads. */
function upstreamContext(options: UpstreamsOptions) {
  const { redis, pepper } = options;
  const now = options.now ?? Date.now;
  const store = new UpstreamStore(redis);
  const client = options.client ?? new UpstreamClient({ allowedPrivate: options.allowedPrivate, observe: options.observe });
  const tokens = new ForwardedTokens(redis, pepper, options.issuer, now);

  const sealed = (c: { header: string; value: string } | null | undefined, project: string) =>
    c ? { header: c.header, sealed: sealValue(pepper, project, c.value, SEAL_INFO) } : null;

  // A record's credential is opened once, not on every call (HKDF and AES-GCM, about 12 µs): kept
  // beside the record itself, so it goes when the gateway's tool set that read the record goes.
  const opened = new WeakMap<Upstream, Endpoint['credential']>();
  function credentialOf(u: Upstream): Endpoint['credential'] {
    let credential = opened.get(u);
    if (credential === undefined) {
      const value = u.credential ? unsealValue(pepper, u.project, u.credential.sealed, SEAL_INFO) : null;
      credential = u.credential && value !== null ? { header: u.credential.header, value } : null;
      opened.set(u, credential);
    }
    return credential;
  }

  /**
   * What a request to `u` needs: its URL, time, opened credential, whose share it uses, and the
   * tokens it carries: for `acting` (a caller), or for svc itself when it reads the tools.
   */
  function endpointOf(u: Upstream, workspace: string, acting: Acting = SVC_ITSELF): Endpoint {
    return {
      project: u.project,
      upstream: u.name,
      url: u.url,
      timeoutMs: u.timeoutMs,
      credential: credentialOf(u),
      tenant: workspace,
      era: u.era,
      token: (tool) => tokens.mint({ ...acting, audience: u.url, project: u.project, workspace, tool, upstream: u.name }),
    };
  }

  /** The upstream's era and tools, read now; a failure is the caller's to report. */
  async function discover(u: Upstream, workspace: string) {
    const endpoint = endpointOf(u, workspace);
    const { era, version } = await client.handshake(endpoint);
    const listed = await client.listTools({ ...endpoint, era });
    return { era, version, ...checkTools(u.name, listed) };
  }

  async function view(project: string, name: string): Promise<UpstreamView | null> {
    const all = await store.read(project);
    const upstream = all.upstreams.find((u) => u.name === name);
    return upstream ? { upstream, tools: all.tools.filter((t) => t.upstream === name).sort(byName) } : null;
  }

  /**
   * Changes one upstream's record and rows from what `plan` makes of a fresh read (rows to write,
   * the names of rows to delete); retried when a write raced it.
   */
  async function change(
    project: string,
    name: string,
    plan: (current: UpstreamView) => Promise<{ upstream?: Upstream; tools?: UpstreamTool[]; remove?: string[] }>,
  ): Promise<UpstreamView> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const all = await store.read(project);
      const upstream = all.upstreams.find((u) => u.name === name);
      if (!upstream) throw new UpstreamInputError(`This project has no upstream server named ${name}.`, 'name', 404);
      const next = await plan({ upstream, tools: all.tools.filter((t) => t.upstream === name) });
      const edit: RowChange = { read: new Map(), set: new Map(), remove: [] };
      const uf = FIELDS.upstream(name);
      edit.read.set(uf, all.raw.get(uf) ?? '');
      if (next.upstream) edit.set.set(uf, JSON.stringify(next.upstream));
      for (const t of next.tools ?? []) {
        const tf = FIELDS.tool(name, t.name);
        edit.read.set(tf, all.raw.get(tf) ?? '');
        edit.set.set(tf, JSON.stringify(t));
      }
      for (const tool of next.remove ?? []) {
        const tf = FIELDS.tool(name, tool);
        edit.read.set(tf, all.raw.get(tf) ?? '');
        edit.remove.push(tf);
      }
      if (await store.write(project, edit)) return (await view(project, name))!;
    }
    throw new UpstreamInputError('The upstream changed while this change was made; try again.', 'name', 409);
  }

  return { redis, now, store, client, tokens, sealed, endpointOf, discover, view, change };
}

type Context = ReturnType<typeof upstreamContext>;

/** Registers an upstream: checked, spoken to, its tools read and rowed, then stored (refused past the project's limit). */
async function register(ctx: Context, input: RegisterInput): Promise<UpstreamView> {
  const nameProblem = upstreamNameProblem(input.name);
  if (nameProblem) throw new UpstreamInputError(`The ${nameProblem}.`, 'name');
  checkUrl(input.url);
  checkCredential(input.credential);
  const at = ctx.now();
  const upstream: Upstream = {
    name: input.name,
    project: input.project,
    url: input.url,
    timeoutMs: input.timeoutMs ?? UPSTREAM_LIMITS.timeoutMs.default,
    credential: ctx.sealed(input.credential, input.project),
    era: null,
    protocolVersion: null,
    addedAt: at,
    addedBy: input.addedBy,
    refreshedAt: null,
    problem: null,
  };
  // A refused registration leaves no session behind (client.ts keeps one per registered upstream).
  const refused = <E>(err: E): E => {
    ctx.client.forget(input.project, input.name);
    return err;
  };
  const found = await ctx.discover(upstream, input.workspace).catch((err: unknown) => {
    throw refused(new UpstreamInputError(`svc could not read the server's tools: ${reasonOf(err)}.`, 'url'));
  });
  const registered: Upstream = {
    ...upstream,
    era: found.era,
    protocolVersion: found.version,
    refreshedAt: at,
    problem: found.problems.join('; ') || null,
  };
  const tools = mergeTools(input.name, [], found.tools, at, true).rows;
  const outcome = await ctx.store.add(registered, tools).catch((err: unknown) => {
    throw refused(err);
  });
  if (outcome === 'exists')
    throw refused(new UpstreamInputError(`This project already has an upstream server named ${input.name}.`, 'name', 409));
  if (outcome === 'full')
    throw refused(
      new UpstreamInputError(`A project may have at most ${UPSTREAM_LIMITS.perProject} upstream servers; remove one first.`, 'name', 409),
    );
  return { upstream: registered, tools: tools.sort(byName) };
}

/** Reads the upstream's tools again and merges them; a failure is kept on the record as its problem. */
async function refresh(ctx: Context, project: string, workspace: string, name: string): Promise<UpstreamView> {
  let flagged: string[] = [];
  const view = await ctx.change(project, name, async ({ upstream, tools }) => {
    const at = ctx.now();
    try {
      const found = await ctx.discover(upstream, workspace);
      const merged = mergeTools(name, tools, found.tools, at, false);
      // mergeTools returns the rows that moved: those now new or changed wait for an admin.
      flagged = merged.rows.filter((t) => t.state === 'new' || t.state === 'changed').map((t) => t.name);
      return {
        upstream: {
          ...upstream,
          era: found.era,
          protocolVersion: found.version,
          refreshedAt: at,
          problem: [...found.problems, ...merged.problems].join('; ') || null,
        },
        tools: merged.rows,
        remove: merged.remove,
      };
    } catch (err) {
      flagged = [];
      return { upstream: { ...upstream, refreshedAt: at, problem: `svc could not read the server's tools: ${reasonOf(err)}` } };
    }
  });
  return { ...view, flagged };
}

async function update(ctx: Context, project: string, workspace: string, name: string, patch: UpstreamChange): Promise<UpstreamView> {
  if (patch.url !== undefined) checkUrl(patch.url);
  checkCredential(patch.credential);
  const changed = await ctx.change(project, name, async ({ upstream }) => ({
    upstream: {
      ...upstream,
      ...(patch.url === undefined ? {} : { url: patch.url, era: null, protocolVersion: null }),
      ...(patch.timeoutMs === undefined ? {} : { timeoutMs: patch.timeoutMs }),
      ...(patch.credential === undefined ? {} : { credential: ctx.sealed(patch.credential, project) }),
    },
  }));
  // Another server may now answer there: its tools are read again (new ones start off).
  return patch.url === undefined && patch.credential === undefined ? changed : refresh(ctx, project, workspace, name);
}

function setTool(ctx: Context, project: string, name: string, tool: string, patch: ToolChange): Promise<UpstreamView> {
  return ctx.change(project, name, async ({ tools }) => {
    const row = tools.find((t) => t.name === tool);
    if (!row) throw new UpstreamInputError(`The upstream server ${name} has no tool named ${tool}.`, 'tool', 404);
    const { acceptChange, ...policy } = patch;
    const { min, max } = UPSTREAM_LIMITS.toolCost;
    // Checked here, not only by the REST schema: the dashboard and svc-admin come through this too.
    if (policy.cost !== undefined && !(Number.isInteger(policy.cost) && policy.cost >= min && policy.cost <= max))
      throw new UpstreamInputError(`A tool's cost is a whole number from ${min} to ${max}.`, 'cost');
    const next: UpstreamTool = { ...row, policy: { ...row.policy, ...policy } };
    if (acceptChange && row.state === 'changed' && row.pending)
      Object.assign(next, { descriptor: row.pending, pending: null, state: 'listed' });
    // Turning a new tool on is the admin's review of it.
    if (next.state === 'new' && next.policy.enabled) next.state = 'listed';
    return { tools: [next] };
  });
}

export function createUpstreams(options: UpstreamsOptions) {
  const ctx = upstreamContext(options);
  return {
    store: ctx.store,
    client: ctx.client,
    tokens: ctx.tokens,
    endpointOf: ctx.endpointOf,
    view: ctx.view,
    read: (project: string): Promise<ProjectUpstreams> => ctx.store.read(project),
    register: (input: RegisterInput) => register(ctx, input),
    refresh: (project: string, workspace: string, name: string) => refresh(ctx, project, workspace, name),
    /**
     * A gateway's refresh of an upstream due one (or that said its tools changed): one gateway at
     * a time (a lease); null when another holds it or it is not due.
     */
    async refreshIfDue(project: string, workspace: string, u: Upstream, force = false): Promise<UpstreamView | null> {
      if (!force && u.refreshedAt !== null && ctx.now() - u.refreshedAt < UPSTREAM_LIMITS.refreshEveryMs) return null;
      const lease = await ctx.redis.set(K.upstreamRefreshLease(project, u.name), '1', 'PX', UPSTREAM_LIMITS.leaseMs, 'NX');
      if (lease !== 'OK') return null;
      return refresh(ctx, project, workspace, u.name);
    },
    update: (project: string, workspace: string, name: string, patch: UpstreamChange) => update(ctx, project, workspace, name, patch),
    setTool: (project: string, name: string, tool: string, patch: ToolChange) => setTool(ctx, project, name, tool, patch),
    /** Sets the project's rule for a built-in tool, or (null) goes back to the tool's own row. */
    setBuiltin: (project: string, tool: string, setting: BuiltinToolSetting | null) => ctx.store.setBuiltin(project, tool, setting),
    /** Removes an upstream and its rows; this gateway's session with it goes too (other gateways' go as the least recently used). */
    async remove(project: string, name: string): Promise<Upstream | null> {
      const removed = await ctx.store.remove(project, name);
      ctx.client.forget(project, name);
      return removed;
    },
    async removeAll(project: string): Promise<number> {
      const removed = await ctx.store.removeAll(project);
      ctx.client.forget(project);
      return removed;
    },
  };
}

const byName = (a: UpstreamTool, b: UpstreamTool) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function checkUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UpstreamInputError('The url is not an absolute URL.', 'url');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new UpstreamInputError('The url must be http or https.', 'url');
  if (parsed.username || parsed.password)
    throw new UpstreamInputError('The url must not hold a user name or password; give a credential instead.', 'url');
  if (parsed.hash) throw new UpstreamInputError('The url must not have a fragment.', 'url');
  if (url.length > UPSTREAM_LIMITS.urlLength)
    throw new UpstreamInputError(`The url is longer than ${UPSTREAM_LIMITS.urlLength} characters.`, 'url');
}

function checkCredential(c: { header: string; value: string } | null | undefined): void {
  if (!c) return;
  if (!HEADER_NAME.test(c.header) || RESERVED_HEADER.test(c.header))
    throw new UpstreamInputError(
      'The credential header must be a header name (letters, digits, -) that is not one MCP or HTTP uses itself.',
      'credential',
    );
  if (c.value.length === 0 || c.value.length > UPSTREAM_LIMITS.credentialLength || /[\r\n\0]/.test(c.value))
    throw new UpstreamInputError(
      `The credential value must be 1 to ${UPSTREAM_LIMITS.credentialLength} characters on one line.`,
      'credential',
    );
}

/** What may be said of a failure to whoever registered the upstream: never an address or a stack. */
function reasonOf(err: unknown): string {
  return err instanceof UpstreamFailure ? err.message : 'the server cannot be reached';
}
