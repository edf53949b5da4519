/**
 * Invitations (docs/management.md "Invitations"): adding a member by an address that has no
 * confirmed account mails that address a single-use link; it becomes a membership only when a
 * signed-in account with that address, confirmed, accepts it. One pending invitation per address
 * and project (inviting again replaces the link); each lives INVITATION_TTL_SECONDS; a project
 * holds at most `pendingInvitationsPerProject` (COLLECTION_LIMITS). An address is mailed an
 * invitation to a project at most once per INVITATION_RENEW_SECONDS, cancelled invitations included.
 */
import { createHash, randomBytes } from 'node:crypto';
import { runScript, script } from '@svc/limits';
import type { KeyLevel } from '@svc/policy';
import { addLive } from './collection-limits.ts';
import type { StoreContext } from './context.ts';
import { AccountError } from './errors.ts';
import { K } from './keys.ts';
import type { User } from './types.ts';
import type { WorkspaceStore } from './workspaces.ts';

/** How long an invitation link works: 7 days, long enough for a week away from mail. */
export const INVITATION_TTL_SECONDS = 7 * 86_400;
/**
 * An address is mailed a new invitation to one project at most once an hour: inviting again sooner
 * is refused, also after the invitation was cancelled (an add-cancel cycle would mail it each time).
 */
export const INVITATION_RENEW_SECONDS = 3600;

/**
 * KEYS[1] the address's last mail to the project; ARGV[1] now (ms); ARGV[2] this claim; ARGV[3]
 * the window (ms). Claims the mail and answers 0, or answers when the last one was sent (ms) if
 * that was within the window. The time is the store's clock, compared here; the TTL only clears.
 */
const CLAIM_MAIL = script(`
local v = redis.call('GET', KEYS[1])
local last = v and tonumber(string.match(v, '^%d+'))
if last and tonumber(ARGV[1]) - last < tonumber(ARGV[3]) then return last end
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. ARGV[2], 'PX', ARGV[3])
return 0`);
/** KEYS[1] the mail claim; ARGV[1] the claim's value: given back only if still this one's. */
const RELEASE_MAIL = script(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`);

const utcMinute = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export interface Invitation {
  id: string;
  project: string;
  email: string;
  role: KeyLevel;
  invitedBy: string;
  createdAt: number;
  expiresAt: number;
}

const digest = (token: string) => createHash('sha256').update(token).digest('hex');

/** Why an invitation was not accepted: the page says it in a sentence. */
export type InvitationRefusal = 'unknown' | 'other_address' | 'unconfirmed';

export class InvitationStore {
  private readonly ctx: StoreContext;
  private readonly workspaces: WorkspaceStore;

  constructor(ctx: StoreContext, workspaces: WorkspaceStore) {
    this.ctx = ctx;
    this.workspaces = workspaces;
  }

  /** A new (or renewed) invitation and the clear token of its link, which is stored only as a digest. */
  async create(input: {
    project: string;
    email: string;
    role: KeyLevel;
    invitedBy: string;
  }): Promise<{ invitation: Invitation; token: string }> {
    const email = input.email.trim().toLowerCase();
    // One per address and project: its id is derived from both, so inviting again replaces it.
    const id = `inv_${createHash('sha256').update(`${input.project}\n${email}`).digest('base64url').slice(0, 22)}`;
    const createdAt = this.ctx.now();
    const expiresAt = createdAt + INVITATION_TTL_SECONDS * 1000;
    const pending = await this.get(id);
    if (pending && createdAt - pending.createdAt < INVITATION_RENEW_SECONDS * 1000)
      throw new AccountError(
        'conflict',
        `${email} was invited less than an hour ago; the link mailed then works until ${utcMinute(pending.expiresAt)}.`,
      );
    // The mail is claimed before anything is written, and given back if the invitation is refused.
    const window = INVITATION_RENEW_SECONDS * 1000;
    const nonce = randomBytes(9).toString('base64url');
    const mailed = Number(await runScript(this.ctx.redis, CLAIM_MAIL, [K.invitationMailed(id)], [createdAt, nonce, window]));
    if (mailed)
      throw new AccountError(
        'conflict',
        `${email} was invited less than an hour ago and the invitation cancelled; invite them again after ${utcMinute(mailed + window)}.`,
      );
    try {
      await addLive(this.ctx, 'pendingInvitationsPerProject', K.projectInvitations(input.project), id, expiresAt);
    } catch (err) {
      await runScript(this.ctx.redis, RELEASE_MAIL, [K.invitationMailed(id)], [`${createdAt} ${nonce}`]);
      throw err;
    }
    const previous = await this.ctx.redis.hget(K.invitation(id), 'tokenDigest');
    const token = randomBytes(32).toString('base64url');
    const invitation: Invitation = {
      id,
      project: input.project,
      email,
      role: input.role,
      invitedBy: input.invitedBy,
      createdAt,
      expiresAt,
    };
    await this.ctx.redis
      .multi()
      .del(...(previous ? [K.invitationToken(previous)] : []), K.invitation(id))
      .hset(K.invitation(id), { ...serialize(invitation), tokenDigest: digest(token) })
      .expire(K.invitation(id), INVITATION_TTL_SECONDS)
      .set(K.invitationToken(digest(token)), id, 'EX', INVITATION_TTL_SECONDS)
      .zadd(K.projectInvitations(input.project), expiresAt, id)
      .exec();
    return { invitation, token };
  }

  /** A project's pending invitations, oldest first. */
  async list(project: string): Promise<Invitation[]> {
    const ids = await this.ctx.redis.zrangebyscore(K.projectInvitations(project), this.ctx.now(), '+inf');
    const out: Invitation[] = [];
    for (const id of ids) {
      const inv = await this.get(id);
      if (inv) out.push(inv);
    }
    return out;
  }

  async get(id: string): Promise<Invitation | null> {
    const h = await this.ctx.redis.hgetall(K.invitation(id));
    if (!h['id'] || Number(h['expiresAt']) <= this.ctx.now()) return null;
    return {
      id: h['id'],
      project: h['project'] ?? '',
      email: h['email'] ?? '',
      role: (h['role'] ?? 'VIEWER') as KeyLevel,
      invitedBy: h['invitedBy'] ?? '',
      createdAt: Number(h['createdAt']),
      expiresAt: Number(h['expiresAt']),
    };
  }

  /** The invitation a link's token opens, if it is still pending. */
  async ofToken(token: string): Promise<Invitation | null> {
    const id = token ? await this.ctx.redis.get(K.invitationToken(digest(token))) : null;
    return id ? this.get(id) : null;
  }

  /** Ends a pending invitation; false when there was none. */
  async cancel(project: string, id: string): Promise<boolean> {
    const inv = await this.get(id);
    if (!inv || inv.project !== project) return false;
    await this.remove(id);
    return true;
  }

  /**
   * The person takes the invitation the token opens: only a confirmed account whose address is the
   * invited one. The token is taken with GETDEL, so the link works once; a refused person leaves it
   * in place for the address's owner.
   */
  async accept(token: string, user: User): Promise<{ invitation: Invitation } | { refused: InvitationRefusal }> {
    const inv = await this.ofToken(token);
    if (!inv) return { refused: 'unknown' };
    if (inv.email !== user.email.toLowerCase()) return { refused: 'other_address' };
    if (!user.emailVerifiedAt) return { refused: 'unconfirmed' };
    if ((await this.ctx.redis.getdel(K.invitationToken(digest(token)))) !== inv.id) return { refused: 'unknown' };
    try {
      await this.workspaces.setRole(inv.project, user.id, inv.role);
    } catch (err) {
      // The project is full (membersPerProject): the link stays usable once room is made.
      await this.ctx.redis.set(K.invitationToken(digest(token)), inv.id, 'PX', Math.max(1, inv.expiresAt - this.ctx.now()));
      throw err;
    }
    await this.remove(inv.id);
    return { invitation: inv };
  }

  private async remove(id: string): Promise<void> {
    const h = await this.ctx.redis.hgetall(K.invitation(id));
    await this.ctx.redis
      .multi()
      .del(K.invitation(id), ...(h['tokenDigest'] ? [K.invitationToken(h['tokenDigest'])] : []))
      .zrem(K.projectInvitations(h['project'] ?? ''), id)
      .exec();
  }
}

function serialize(inv: Invitation): Record<string, string> {
  return {
    id: inv.id,
    project: inv.project,
    email: inv.email,
    role: inv.role,
    invitedBy: inv.invitedBy,
    createdAt: String(inv.createdAt),
    expiresAt: String(inv.expiresAt),
  };
}
