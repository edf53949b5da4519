/**
 * A workspace's usage (docs/management.md "Usage"): this minute's and this month's requests
 * against the plan, this month's counts per credential and per tool, and the daily history, each
 * credential named as its row shows it.
 */
import { K, WINDOWS, type Accounts } from '@svc/accounts';
import { planLimits } from '@svc/policy';
import type { ManagementContext } from './context.ts';
import type { Usage, Actor } from './types.ts';
import { parseUsageDays, readDayCounts } from './usage-history.ts';

/** A workspace's usage meters: the owner's. */
export interface UsageOperations {
  /** The meters, this month per key and tool, and the last `days` (1 to USAGE_HISTORY_DAYS, default all) per day. */
  usage(actor: Actor, workspace: string, query?: { days?: string | number | null }): Promise<Usage>;
}

/** The usage operation, on the shared context (described on UsageOperations). */
export function usageOperations(ctx: ManagementContext): UsageOperations {
  const { accounts, deps, now, ownerOf } = ctx;
  return {
    async usage(actor, workspace, query = {}) {
      const ws = await ownerOf(actor, workspace, 'see usage');
      const days = parseUsageDays(query.days);
      const limits = planLimits(ws.plan);
      const t = now();
      const [minute, monthly, counts, history] = await Promise.all([
        deps.redis.get(K.rateMinute(workspace, WINDOWS.minute(t))),
        deps.redis.get(K.rateMonth(workspace, WINDOWS.month(t))),
        deps.redis.hgetall(K.usage(workspace, WINDOWS.month(t))),
        readDayCounts(deps.redis, workspace, t, days),
      ]);
      const names = new Map<string, Promise<Credential>>();
      const credential = (kind: string, id: string) => {
        let named = names.get(`${kind}:${id}`);
        if (!named) names.set(`${kind}:${id}`, (named = nameCredential(accounts, kind, id)));
        return named;
      };
      const perKey: Usage['perKey'] = [];
      const perTool: Usage['perTool'] = [];
      for (const [field, value] of Object.entries(counts)) {
        const count = Number(value);
        const [kind, id = ''] = splitField(field);
        if (kind === 'tool') perTool.push({ tool: id, count });
        else if (kind === 'key' || kind === 'user') perKey.push({ ...(await credential(kind, id)), count });
      }
      const daily: Usage['daily'] = { days: history.days, requests: history.days.map(() => 0), perKey: [], perTool: [] };
      for (const [field, dayCounts] of history.fields) {
        const [kind, id = ''] = splitField(field);
        if (kind === 'tool') daily.perTool.push({ tool: id, counts: dayCounts });
        else if (kind === 'key' || kind === 'user') {
          daily.perKey.push({ ...(await credential(kind, id)), counts: dayCounts });
          // Each admitted request counts once for its credential: their sum is the day's requests.
          dayCounts.forEach((n, i) => (daily.requests[i] = (daily.requests[i] ?? 0) + n));
        }
      }
      const byCount = (a: { count: number }, b: { count: number }) => b.count - a.count;
      const sum = (c: number[]) => c.reduce((a, b) => a + b, 0);
      const byTotal = (a: { counts: number[] }, b: { counts: number[] }) => sum(b.counts) - sum(a.counts);
      return {
        minute: { used: Number(minute ?? 0), limit: limits.requestsPerMinute },
        month: { used: Number(monthly ?? 0), quota: limits.monthlyQueries },
        perKey: perKey.sort(byCount),
        perTool: perTool.sort((a, b) => byCount(a, b) || a.tool.localeCompare(b.tool)),
        daily: {
          ...daily,
          perKey: daily.perKey.sort(byTotal),
          perTool: daily.perTool.sort((a, b) => byTotal(a, b) || a.tool.localeCompare(b.tool)),
        },
      };
    },
  };
}

type Credential = { name: string; prefix: string; project: string };

/** A usage field's credential as a row names it: a key by name and prefix, a person (OAuth) by email. */
async function nameCredential(accounts: Accounts, kind: string, id: string): Promise<Credential> {
  if (kind === 'user') {
    const user = await accounts.users.get(id);
    return { name: user ? `${user.email} (OAuth)` : 'former member (OAuth)', prefix: '', project: '' };
  }
  const key = await accounts.keys.getById(id);
  // A member's personal key is named by its person, not by the tool that made it.
  const person = key?.kind === 'user_key' ? (await accounts.users.get(key.userId))?.email : undefined;
  return {
    name: person ? `${person} (personal key)` : (key?.name ?? 'deleted key'),
    prefix: key?.prefix ?? id,
    project: key?.project ?? '',
  };
}

/** A usage hash field (`key:<id>`, `user:<id>`, `tool:<name>`) as its kind and name. */
function splitField(field: string): [string, string] {
  const at = field.indexOf(':');
  return at < 0 ? [field, ''] : [field.slice(0, at), field.slice(at + 1)];
}
