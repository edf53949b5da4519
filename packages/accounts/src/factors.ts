/**
 * A person's second factors (docs/auth-service.md "Second factor"): one TOTP secret (RFC 6238),
 * sealed; its single-use recovery codes, hashed; and the workspace policy "members must use a second factor". The checks of codes and assertions
 * are the auth-service's; this store keeps what they need and makes each use single.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { StoreContext } from './context.ts';
import type { WorkspaceStore } from './workspaces.ts';
import { K } from './keys.ts';
import { PasskeyStore, type Passkey } from './passkeys.ts';
import { sealValue, unsealValue } from './factors-seal.ts';
import { runScript, script } from '@svc/limits';

/** Recovery codes made when a TOTP secret is confirmed; each works once. */
export const RECOVERY_CODE_COUNT = 10;
/** How long a TOTP secret shown for enrolment waits for its confirming code. */
export const TOTP_ENROL_TTL_SECONDS = 900;

export interface FactorSummary {
  totp: { createdAt: number } | null;
  recoveryCodesLeft: number;
  passkeys: Passkey[];
}

/**
 * KEYS[1] the confirmed TOTP record; ARGV time step. A code's step is used once: it is accepted
 * only when later than the last step accepted (RFC 6238 §5.2: "the verifier MUST NOT accept the
 * second attempt of the OTP after the successful validation has been issued for the first OTP").
 */
const USE_STEP = script(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local last = tonumber(redis.call('HGET', KEYS[1], 'lastStep') or '-1')
if tonumber(ARGV[1]) <= last then return 0 end
redis.call('HSET', KEYS[1], 'lastStep', ARGV[1])
return 1
`);

/**
 * KEYS[1] pending, KEYS[2] confirmed TOTP, KEYS[3] recovery codes; ARGV sealed secret, step, now,
 * then the recovery code hashes. The pending secret becomes the confirmed one only if it is still
 * the one the code was checked against; the codes replace any earlier ones.
 */
const CONFIRM_TOTP = script(`
if redis.call('HGET', KEYS[1], 'sealed') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('HSET', KEYS[2], 'sealed', ARGV[1], 'lastStep', ARGV[2], 'createdAt', ARGV[3])
for i = 4, #ARGV do redis.call('SADD', KEYS[3], ARGV[i]) end
return 1
`);

const recoveryAlphabet = 'abcdefghjkmnpqrstuvwxyz23456789';

/** A recovery code as shown: 10 characters from a 31-letter alphabet (about 49 bits), as xxxxx-xxxxx. */
function newRecoveryCode(): string {
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => recoveryAlphabet[b % recoveryAlphabet.length] ?? 'a').join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** What a typed recovery code is compared as: lower case, without spaces or dashes. */
const normalRecovery = (code: string) => code.toLowerCase().replace(/[\s-]/g, '');

export class FactorStore {
  private readonly ctx: StoreContext;
  private readonly workspaces: WorkspaceStore;
  /** The person's passkeys (passkeys.ts). */
  readonly passkeys: PasskeyStore;
  constructor(ctx: StoreContext, workspaces: WorkspaceStore) {
    this.ctx = ctx;
    this.workspaces = workspaces;
    this.passkeys = new PasskeyStore(ctx);
  }

  private recoveryHash(userId: string, code: string): string {
    return createHmac('sha256', this.ctx.pepper)
      .update(`recovery|${userId}|${normalRecovery(code)}`)
      .digest('hex');
  }

  /** What the account page lists. */
  async summary(userId: string): Promise<FactorSummary> {
    const totp = await this.ctx.redis.hget(K.factorTotp(userId), 'createdAt');
    return {
      totp: totp ? { createdAt: Number(totp) } : null,
      recoveryCodesLeft: await this.ctx.redis.scard(K.factorRecovery(userId)),
      passkeys: await this.passkeys.list(userId),
    };
  }

  /** True when the person has a confirmed second factor (an authenticator app or a passkey). */
  async hasAny(userId: string): Promise<boolean> {
    const s = await this.summary(userId);
    return s.totp !== null || s.passkeys.length > 0;
  }

  /** Keeps `secret` as the TOTP secret waiting for its confirming code (replacing any other waiting one). */
  async beginTotp(userId: string, secret: string): Promise<void> {
    const key = K.factorTotpPending(userId);
    await this.ctx.redis
      .multi()
      .del(key)
      .hset(key, 'sealed', sealValue(this.ctx.pepper, userId, secret))
      .expire(key, TOTP_ENROL_TTL_SECONDS)
      .exec();
  }

  async pendingTotp(userId: string): Promise<string | null> {
    const sealed = await this.ctx.redis.hget(K.factorTotpPending(userId), 'sealed');
    return sealed ? unsealValue(this.ctx.pepper, userId, sealed) : null;
  }

  /**
   * Makes the waiting secret the person's TOTP factor, its confirming code's `step` used, and
   * returns RECOVERY_CODE_COUNT new recovery codes (shown once; only their hashes are kept); an
   * account has one TOTP secret, so a new one replaces the old. 'expired' when no secret waits.
   */
  async confirmTotp(userId: string, step: number): Promise<string[] | 'expired'> {
    const sealed = await this.ctx.redis.hget(K.factorTotpPending(userId), 'sealed');
    if (!sealed) return 'expired';
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    const keys = [K.factorTotpPending(userId), K.factorTotp(userId), K.factorRecovery(userId)];
    const args = [sealed, String(step), String(this.ctx.now()), ...codes.map((c) => this.recoveryHash(userId, c))];
    const done = Number(await runScript(this.ctx.redis, CONFIRM_TOTP, keys, args));
    return done === 1 ? codes : 'expired';
  }

  /** The confirmed TOTP secret, or null. */
  async totpSecret(userId: string): Promise<string | null> {
    const sealed = await this.ctx.redis.hget(K.factorTotp(userId), 'sealed');
    return sealed ? unsealValue(this.ctx.pepper, userId, sealed) : null;
  }

  /** Records a code's time step as used; false when it (or a later one) was used already. */
  async useTotpStep(userId: string, step: number): Promise<boolean> {
    return Number(await runScript(this.ctx.redis, USE_STEP, [K.factorTotp(userId)], [String(step)])) === 1;
  }

  /** Uses one recovery code: true once per code (removed in the same step it is checked). */
  async useRecoveryCode(userId: string, code: string): Promise<boolean> {
    if (!normalRecovery(code) || code.length > 40) return false;
    return (await this.ctx.redis.srem(K.factorRecovery(userId), this.recoveryHash(userId, code))) === 1;
  }

  /** Removes the TOTP factor and its recovery codes. */
  async removeTotp(userId: string): Promise<boolean> {
    return (await this.ctx.redis.del(K.factorTotp(userId), K.factorRecovery(userId), K.factorTotpPending(userId))) > 0;
  }

  /** A workspace owner's reset (docs/auth-service.md "Recovery"): every factor of the person removed. */
  async resetAll(userId: string): Promise<void> {
    await this.ctx.redis.del(K.factorTotp(userId), K.factorRecovery(userId), K.factorTotpPending(userId));
    await this.passkeys.removeAll(userId);
  }

  /** The workspace's "members must use a second factor" policy. */
  async required(workspace: string): Promise<boolean> {
    return (await this.ctx.redis.get(K.workspaceFactorPolicy(workspace))) === '1';
  }

  /**
   * True when the person must use a second factor: their own workspace, or the workspace of a
   * project they are a member of, requires one (docs/auth-service.md "Second factor"). `except`
   * leaves one workspace out: a sign-in through that workspace's own provider answers for its
   * policy, and for no other's.
   */
  async requiredFor(user: { id: string; workspace: string }, options: { except?: string } = {}): Promise<boolean> {
    const workspaces = new Set([user.workspace]);
    for (const p of await this.workspaces.accessibleProjects(user.id)) workspaces.add(p.project.workspace);
    if (options.except !== undefined) workspaces.delete(options.except);
    for (const ws of workspaces) if (await this.required(ws)) return true;
    return false;
  }

  async setRequired(workspace: string, on: boolean): Promise<void> {
    if (on) await this.ctx.redis.set(K.workspaceFactorPolicy(workspace), '1');
    else await this.ctx.redis.del(K.workspaceFactorPolicy(workspace));
  }
}
