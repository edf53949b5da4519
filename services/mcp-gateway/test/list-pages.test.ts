/**
 * Every paged list of the management API (docs/management.md "Lists and pages"), by one generator
 * over the contract: each operation that declares a `cursor` is seeded past one page (members
 * created in the same millisecond among them), then read page by page: the pages join to the whole
 * without repeat or loss, newest first; the page size is capped; a bad cursor or limit is a 400
 * naming it. Every list operation of the contract is either paged or named in BOUNDED_LISTS.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createAccounts, LIST_MAX_PAGE, LIST_PAGE, type Accounts } from '@svc/accounts';
import { MANAGEMENT_OPERATIONS, type OperationId } from '@svc/management/contract';
import { outsideLoopBudget } from '@svc/testkit';
import { send, type Answered } from './management-client.ts';
import { seed, startFixture, type GatewayFixture, type Seeded } from './support.ts';

let f: GatewayFixture;
let owner: Seeded;
let personal: string;
/** The store with a clock held still: what it creates shares one millisecond (ties in the index). */
let still: Accounts;
const answered: Answered[] = [];

before(async () => {
  await outsideLoopBudget(async () => {
    f = await startFixture();
  });
  owner = await seed(f.accounts, { plan: 'TEAM' });
  personal = (await f.accounts.keys.createUserKey({ userId: owner.userId })).key;
  const hourAgo = Date.now() - 3_600_000;
  still = createAccounts(f.redis.client, { pepper: f.config.keyPepper, bcryptCost: 4, now: () => hourAgo });
});
after(() => f.close());

/** More than one page of the largest size. */
const SEEDED = LIST_MAX_PAGE + 23;

/** Seeds SEEDED items of one list and gives the path that lists them and the ids seeded. */
type Seeder = () => Promise<{ path: string; ids: string[] }>;

const SEEDERS: Partial<Record<OperationId, Seeder>> = {
  async listAccessRequests() {
    const ids: string[] = [];
    for (let i = 0; i < SEEDED; i++) {
      const store = i % 3 === 0 ? still : f.accounts;
      const r = await store.accessRequests.create(
        {
          project: owner.project,
          requester: { type: 'key', id: `key_seed${i}`, label: `seed ${i}` },
          requestedLevel: 'VIEWER',
          reason: 'pages',
        },
        { source: '192.0.2.1', requestId: 'test' },
      );
      ids.push(r.id);
    }
    return { path: `/api/v1/projects/${owner.project}/access-requests`, ids };
  },
  async myAccessRequests() {
    const ids: string[] = [];
    for (let i = 0; i < SEEDED; i++) {
      const project = `${owner.project}-p${i}`;
      await f.accounts.workspaces.createProject({ slug: project, workspace: owner.workspace });
      const store = i % 3 === 0 ? still : f.accounts;
      const r = await store.accessRequests.create(
        {
          project,
          requester: { type: 'user', id: owner.userId, label: owner.email },
          requestedLevel: 'VIEWER',
          reason: 'pages',
        },
        { source: '192.0.2.1', requestId: 'test' },
      );
      ids.push(r.id);
    }
    return { path: '/api/v1/me/access-requests', ids };
  },
};

/**
 * The list operations that are not paged, each with the collection limit that bounds its answer
 * (docs/management.md "Lists and pages").
 */
const BOUNDED_LISTS: Partial<Record<OperationId, string>> = {
  listKeys: 'COLLECTION_LIMITS.keysPerProject (live), REVOKED_KEYS_KEPT (revoked)',
  listMembers: 'COLLECTION_LIMITS.membersPerProject, pendingInvitationsPerProject',
  listServiceAccounts: 'COLLECTION_LIMITS.serviceAccountsPerWorkspace (live), REVOKED_SERVICE_ACCOUNTS_KEPT (revoked)',
  listTrustedIssuers: 'TRUSTED_ISSUER_LIMITS',
  listWorkloadIssuers: 'WORKLOAD_ISSUER_LIMITS',
  clientPolicy: 'CLIENT_POLICY_LIMITS.maxRules (each list)',
  listClientApprovals: 'CLIENT_POLICY_LIMITS.maxApprovals',
  listUpstreams: 'UPSTREAM_LIMITS.perProject (servers), UPSTREAM_LIMITS.toolsPerUpstream (tools of each)',
  getUpstream: 'UPSTREAM_LIMITS.toolsPerUpstream',
  getServiceAccountClient: 'SERVICE_ACCOUNT_KEY_LIMITS',
  myApps: 'the grants of one person (each ends with its Grant); personal keys: PERSONAL_KEYS_KEPT',
  ssoSettings: 'SSO_MAX_DOMAINS',
  usage: 'USAGE_HISTORY_DAYS',
  factorPolicy: 'one value',
  listWebhooks: 'WEBHOOK_MAX_ENDPOINTS',
  listWebhookDeliveries: 'WEBHOOK_LOG_SIZE',
  listApprovals: 'APPROVAL_TIMING.maxOpen (every record still kept counts)',
  scimSettings: 'SCIM_MAX_TOKENS (the live tokens)',
  listBuiltinTools: "TOOL_POLICIES (svc's own tools, a fixed table)",
};

const paged = (Object.keys(MANAGEMENT_OPERATIONS) as OperationId[]).filter((id) => {
  const query = (MANAGEMENT_OPERATIONS[id] as { query?: { properties?: Record<string, unknown> } }).query;
  return query?.properties?.['cursor'] !== undefined && id !== 'audit';
});

const get = (path: string) => send(f.url, answered, 'GET', path, personal);

interface Page {
  status: number;
  ids: string[];
  next: string | null;
  field?: string;
}

async function page(path: string, query: Record<string, string>): Promise<Page> {
  const r = await get(`${path}?${new URLSearchParams(query).toString()}`);
  const body = r.body as { requests?: { id: string }[]; next_cursor?: string | null; error?: { field?: string } };
  return { status: r.status, ids: (body.requests ?? []).map((x) => x.id), next: body.next_cursor ?? null, field: body.error?.field };
}

test('every GET operation of the contract answering a list is paged or bounded by a named limit', () => {
  for (const [id, op] of Object.entries(MANAGEMENT_OPERATIONS) as [OperationId, (typeof MANAGEMENT_OPERATIONS)[OperationId]][]) {
    if (op.method !== 'GET' || id === 'audit') continue;
    const answer = op.answer as { properties: Record<string, { type?: unknown }> };
    const lists = Object.values(answer.properties).some((p) => p.type === 'array');
    if (lists) assert.ok(paged.includes(id) || BOUNDED_LISTS[id], `${id} lists without a page or a named bound`);
  }
  assert.deepEqual(paged.sort(), ['listAccessRequests', 'myAccessRequests'], 'the paged operations');
});

for (const id of paged)
  test(`${id}: the pages join to the whole, newest first, without repeat or loss; capped; bad cursors are 400`, async () => {
    const seeder = SEEDERS[id];
    assert.ok(seeder, `a seeder for ${id}`);
    const { path, ids } = await seeder();
    assert.ok(ids.length > LIST_MAX_PAGE);

    const first = await page(path, {});
    assert.equal(first.status, 200);
    assert.equal(first.ids.length, LIST_PAGE, 'the default page size');
    assert.ok(first.next, 'a next page');

    for (const limit of [7, LIST_MAX_PAGE]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let n = 0; n < 1000; n++) {
        const p: Page = await page(path, { limit: String(limit), ...(cursor ? { cursor } : {}) });
        assert.equal(p.status, 200);
        assert.ok(p.ids.length <= limit, 'a page holds at most its limit');
        seen.push(...p.ids);
        cursor = p.next;
        if (!cursor) break;
      }
      assert.equal(new Set(seen).size, seen.length, `limit ${limit}: no id repeated`);
      for (const want of ids) assert.ok(seen.includes(want), `limit ${limit}: ${want} was not lost`);
      const whole = await f.redis.client.zrange(
        id === 'myAccessRequests' ? `svc:user:${owner.userId}:access-requests` : `svc:project:${owner.project}:access-requests`,
        0,
        -1,
        'REV',
      );
      assert.deepEqual(seen, whole, `limit ${limit}: the pages are the whole list, newest first`);
    }

    const over = await page(path, { limit: String(LIST_MAX_PAGE + 1) });
    assert.deepEqual([over.status, over.field], [400, 'limit'], 'a page larger than LIST_MAX_PAGE');
    for (const limit of ['0', '-1', 'ten', '1.5', '99999999']) {
      const bad = await page(path, { limit });
      assert.deepEqual([bad.status, bad.field], [400, 'limit'], limit);
    }
    for (const cursor of ['x', '1.', '.ar_1', '1-2', '12345678901234567.ar_x', `1.${'a'.repeat(81)}`, '1.a b', '1.a/../b']) {
      const bad = await page(path, { cursor });
      assert.deepEqual([bad.status, bad.field], [400, 'cursor'], cursor);
    }
    // A well-formed cursor of a member that is gone: the page after its time, never an error.
    const gone = await page(path, { cursor: `${Date.now()}.ar_gone` });
    assert.equal(gone.status, 200);
  });
