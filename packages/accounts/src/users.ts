import type { StoreContext } from './context.ts';
import { newId, num } from './context.ts';
import { AccountError, EMAIL_PATTERN } from './errors.ts';
import { K } from './keys.ts';
import type { User } from './types.ts';
import type { WorkspaceStore } from './workspaces.ts';
import { checkPassword, hashPassword, passwordMatches } from './passwords.ts';
import { runScript, script } from '@svc/limits';

/** How long a new user's address is held before their record is written (milliseconds in practice). */
const EMAIL_CLAIM_MS = 60_000;
/** KEYS[1] an address's claim; ARGV[1] the user id: kept for good if still that user's (1), else 0. */
const KEEP_CLAIM = script(`if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PERSIST', KEYS[1]) return 1 end return 0`);
/** KEYS[1] an address's claim; ARGV[1] the user id: given back if still that user's. */
const RELEASE_CLAIM = script(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`);

/** Users: email and bcrypt password; each owns a personal workspace created with it. */
export class UserStore {
  private readonly ctx: StoreContext;
  private readonly workspaces: WorkspaceStore;

  constructor(ctx: StoreContext, workspaces: WorkspaceStore) {
    this.ctx = ctx;
    this.workspaces = workspaces;
  }

  /**
   * Creates a user and their personal workspace (FREE); refuses a taken email. Without a password
   * the account exists but cannot sign in until one is set (setPassword). `emailVerified` marks the
   * address proven at once: only for accounts an operator vouches for (svc-admin), never sign-up.
   */
  async create(input: { email: string; password?: string; emailVerified?: boolean }): Promise<User> {
    const email = input.email.trim().toLowerCase();
    if (!EMAIL_PATTERN.test(email)) throw new AccountError('invalid', `"${input.email}" is not an email address`);
    if (input.password !== undefined) checkPassword(input.password);
    // Hashed before the address is claimed: the claim waits on no slow step.
    const passwordHash = input.password === undefined ? '' : await hashPassword(input.password, this.ctx.bcryptCost);
    const id = newId('user');
    const { redis } = this.ctx;
    // The address is claimed for EMAIL_CLAIM_MS (one SET NX: docs/security.md "Single-use values"),
    // kept for good only once the record is written: a creation that fails gives the address back,
    // and one whose process died leaves a claim that lapses, never an address no record answers to.
    const claimed = await redis.set(K.userByEmail(email), id, 'PX', EMAIL_CLAIM_MS, 'NX');
    if (claimed !== 'OK') throw new AccountError('conflict', `a user with email ${email} already exists`);
    try {
      const workspace = await this.workspaces.createPersonal(id, email);
      const createdAt = this.ctx.now();
      const emailVerifiedAt = input.emailVerified ? createdAt : null;
      await redis.hset(K.user(id), {
        id,
        email,
        passwordHash,
        workspace,
        createdAt: String(createdAt),
        ...(emailVerifiedAt === null ? {} : { emailVerifiedAt: String(emailVerifiedAt) }),
      });
      if (Number(await runScript(redis, KEEP_CLAIM, [K.userByEmail(email)], [id])) !== 1)
        throw new AccountError('conflict', `a user with email ${email} already exists`);
      return { id, email, workspace, createdAt, emailVerifiedAt, passwordEpoch: 0 };
    } catch (err) {
      await runScript(redis, RELEASE_CLAIM, [K.userByEmail(email)], [id]);
      throw err;
    }
  }

  /**
   * Sets (or replaces) a user's password and starts a new password epoch: reset links carry the
   * epoch they were made in and work only while it is current (docs/auth-service.md "Password reset").
   */
  async setPassword(id: string, password: string): Promise<number> {
    checkPassword(password);
    if (!(await this.ctx.redis.exists(K.user(id)))) throw new AccountError('not_found', `no user ${id}`);
    const passwordHash = await hashPassword(password, this.ctx.bcryptCost);
    const [[, epoch]] = (await this.ctx.redis
      .multi()
      .hincrby(K.user(id), 'passwordEpoch', 1)
      .hset(K.user(id), 'passwordHash', passwordHash)
      .exec()) as [[Error | null, number], [Error | null, number]];
    return epoch;
  }

  async get(id: string): Promise<User | null> {
    const h = await this.ctx.redis.hgetall(K.user(id));
    if (!h['id']) return null;
    return {
      id: h['id'],
      email: h['email'] ?? '',
      workspace: h['workspace'] ?? '',
      createdAt: Number(h['createdAt']),
      emailVerifiedAt: num(h['emailVerifiedAt']),
      passwordEpoch: Number(h['passwordEpoch'] ?? 0),
    };
  }

  /** The person proved they read mail at their address (docs/auth-service.md "Email verification"). */
  async markEmailVerified(id: string): Promise<void> {
    if (!(await this.ctx.redis.exists(K.user(id)))) throw new AccountError('not_found', `no user ${id}`);
    await this.ctx.redis.hsetnx(K.user(id), 'emailVerifiedAt', String(this.ctx.now()));
  }

  /**
   * Removes the password and starts a new password epoch (reset links made before stop working):
   * for an account whose address someone else proved, as a single sign-on does for an account
   * made before its domain was claimed (docs/auth-service.md "Single sign-on").
   */
  async clearPassword(id: string): Promise<void> {
    if (!(await this.ctx.redis.exists(K.user(id)))) throw new AccountError('not_found', `no user ${id}`);
    await this.ctx.redis.multi().hincrby(K.user(id), 'passwordEpoch', 1).hset(K.user(id), 'passwordHash', '').exec();
  }

  async findByEmail(email: string): Promise<User | null> {
    const id = await this.ctx.redis.get(K.userByEmail(email.trim()));
    return id ? this.get(id) : null;
  }

  /** The user when the password matches; null otherwise (same cost whether or not the user exists). */
  async verifyPassword(email: string, password: string): Promise<User | null> {
    const id = await this.ctx.redis.get(K.userByEmail(email.trim()));
    const hash = id ? await this.ctx.redis.hget(K.user(id), 'passwordHash') : null;
    // Compare against a fixed hash when the user is unknown, so timing does not reveal emails.
    const ok = await passwordMatches(password, hash ?? '');
    return ok && id && hash ? this.get(id) : null;
  }
}
