/**
 * `svc webhooks listen --forward-to URL` (docs/cli.md "svc webhooks listen"): a workspace's events
 * delivered to a receiver on this machine while it is written, as `stripe listen` does. svc's
 * deliveries never reach a private address (docs/webhooks.md "Outbound protections") and the
 * gateway streams no events, so the CLI reads what a delivery is made of, the workspace's audit
 * log (the management API's `audit` operation, the owner's), every POLL_SECONDS, and POSTs each
 * new entry that is an event as the delivery worker would: the same body, the same `webhook-id`
 * and the Standard Webhooks headers (https://www.standardwebhooks.com/, "Signature scheme"),
 * signed with a secret of this session, printed at the start (or the one given with --secret).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
// The audit actions that are events, and under which name: the delivery worker's own map (docs/webhooks.md "Events").
import { eventOf } from '@svc/webhooks/events.ts';
import { CliError, EXIT } from './errors.ts';
import { requestText } from './http.ts';
import { answer, api, given, workspaceOf, type Caller, type Options } from './manage-common.ts';
import type { Io } from './run.ts';

/** How often the audit log is read: a new event reaches the receiver within this, plus the page's time. */
const POLL_SECONDS = 2;
/** Pages of the audit log read in one poll at most (AUDIT_MAX_PAGE each): a burst beyond it is cut, said on stderr. */
const MAX_PAGES_PER_POLL = 10;
const PAGE = 100;
const SECRET_PREFIX = 'whsec_';

export interface AuditEntry {
  id: string;
  at: string;
  actor: string;
  action: string;
  target: string;
  /** Who acted through what (docs/audit.md "Who and through what"), as a delivery names them. */
  principal: unknown;
  agent: unknown;
  chain: unknown;
}

/** `whsec_` and the base64 of 32 random bytes, as svc's own secrets are. */
function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The Standard Webhooks headers of one delivery (the signature over "id.timestamp.body"). */
function signedHeaders(secret: string, id: string, timestampSeconds: number, body: string): Record<string, string> {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${signature}`,
  };
}

/** Stream ids ("<ms>-<seq>") in order. */
const after = (a: string, b: string) => {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am !== bm ? am > bm : as > bs;
};

interface Listener {
  io: Io;
  c: Caller;
  workspace: string;
  forwardTo: string;
  secret: string;
  events: Set<string> | null;
}

/** The entries after `cursor`, oldest first, reading newer pages back to it. */
async function newEntries(l: Listener, cursor: string): Promise<AuditEntry[]> {
  const found: AuditEntry[] = [];
  let page: string | undefined;
  for (let n = 0; n < MAX_PAGES_PER_POLL; n++) {
    const query = { limit: String(PAGE), ...(page ? { cursor: page } : {}) };
    const r = await answer(api(l.c).audit({ params: { workspace: l.workspace }, query }), 'webhooks listen');
    const fresh = r.entries.filter((e) => after(e.id, cursor));
    found.push(...fresh);
    if (fresh.length < r.entries.length || !r.next) return found.reverse();
    page = r.next;
  }
  l.io.err(`More than ${MAX_PAGES_PER_POLL * PAGE} entries since the last read: the oldest of them were skipped.`);
  return found.reverse();
}

/** POSTs one entry as its event; returns what the receiver answered. */
async function forward(l: Listener, entry: AuditEntry, type: string) {
  const id = `msg_${entry.id}_${l.workspace}`;
  const now = Date.now();
  const data = {
    workspace: l.workspace,
    auditId: entry.id,
    action: entry.action,
    actor: entry.actor,
    principal: entry.principal,
    agent: entry.agent,
    chain: entry.chain,
    target: entry.target,
    at: entry.at,
    detail: {},
  };
  const body = JSON.stringify({ type, timestamp: new Date(now).toISOString(), data });
  const t0 = performance.now();
  const res = await requestText(l.forwardTo, {
    method: 'POST',
    headers: signedHeaders(l.secret, id, Math.floor(now / 1000), body),
    body,
  }).catch((err: unknown) => ({ status: null, error: err instanceof CliError ? err.message : String(err) }));
  return { id, type, status: res.status, ms: Math.round(performance.now() - t0), ...('error' in res ? { error: res.error } : {}) };
}

export async function listenCommand(io: Io, c: Caller, v: Options): Promise<void> {
  const forwardTo = given(v, 'forward-to');
  if (!forwardTo) throw new CliError('Give --forward-to URL, e.g. --forward-to http://localhost:4242/webhooks.', EXIT.usage);
  if (!/^https?:\/\//.test(forwardTo)) throw new CliError(`--forward-to must be an http or https URL: ${forwardTo}`, EXIT.usage);
  const secret = given(v, 'secret') ?? newSecret();
  if (!secret.startsWith(SECRET_PREFIX) || Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64').length !== 32)
    throw new CliError('--secret must be whsec_ and the base64 of 32 bytes, as svc prints them.', EXIT.usage);
  const events = given(v, 'events')
    ?.split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const l: Listener = { io, c, workspace: await workspaceOf(c, v), forwardTo, secret, events: events?.length ? new Set(events) : null };
  // A listener starts after the newest entry, as a new endpoint does (docs/webhooks.md "What is promised").
  const start = await answer(api(c).audit({ params: { workspace: l.workspace }, query: { limit: '1' } }), 'webhooks listen');
  let cursor = start.entries[0]?.id ?? '0-0';
  const stopped = new AbortController();
  io.onStop(() => stopped.abort());
  io.err(
    `Ready: forwarding workspace ${l.workspace}'s ${events?.length ? events.join(', ') : 'events'} to ${forwardTo}. Ctrl-C stops.\n` +
      `Signing secret of this session (verify with it; --secret reuses one): ${secret}`,
  );
  let forwarded = 0;
  while (!stopped.signal.aborted) {
    for (const entry of await newEntries(l, cursor)) {
      cursor = entry.id;
      const type = eventOf(entry.action);
      if (!type || (l.events && !l.events.has(type))) continue;
      const r = await forward(l, entry, type);
      forwarded++;
      if (io.json) io.out(JSON.stringify(r));
      else
        io.out([
          { text: `${entry.at}  ${type}  ${r.id}  ` },
          r.status === null
            ? { text: `not delivered: ${r.error ?? ''}`, style: 'red' }
            : { text: `${r.status}`, style: r.status >= 200 && r.status < 300 ? 'green' : 'red' },
          { text: ` (${r.ms} ms)` },
        ]);
    }
    await sleep(POLL_SECONDS * 1000, undefined, { signal: stopped.signal }).catch(() => undefined);
  }
  io.err(`Stopped: ${forwarded} event${forwarded === 1 ? '' : 's'} forwarded.`);
}
