/**
 * A token request's storage scope (docs/auth-service.md "Storage round trips"). oidc-provider
 * awaits each adapter call before the next, so a grant's reads and writes went to Redis one round
 * trip after another. Within one request to the token endpoint:
 * - a read whose key is known before the step that needs it is started ahead (`readAhead`) and
 *   taken by that step (`readOnce`); a taken read is gone, so a second find reads Redis again;
 * - a lookup every step of the request may share (a service account, a person, a project) is read
 *   once for the request (`sharedRead`), as one snapshot;
 * - the writes of issued tokens leave at once without being awaited one by one (`writeBehind`), and
 *   the response waits for every one of them (`settleWrites`): no token is answered before its
 *   record landed, and a write that failed fails the request as an awaited one did;
 * - the members a request adds to one set (a grant's access and refresh token) are added by one
 *   command when the request's writes settle (`addBehind`), the set's lifetime raised to the
 *   longest asked for.
 * Outside a scope (seeding, sweeps, other routes) every call is the plain read or awaited write.
 * The scope rides on the request's asynchronous context (node:async_hooks AsyncLocalStorage).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { NextFunction, Request, Response } from 'express';
import type { KoaContextWithOIDC } from 'oidc-provider';

interface Scope {
  /** Reads started ahead, each taken once. */
  ahead: Map<string, Promise<unknown>>;
  /** Reads shared by the request's steps. */
  shared: Map<string, Promise<unknown>>;
  /** Writes sent and not yet awaited. */
  writes: Promise<void>[];
  /** Members bound for each set, sent when the writes settle. */
  adds: Map<string, SetAdd>;
}

/** Sends `members` to a set whose lifetime is raised to at least `seconds`. */
type SendAdd = (members: string[], seconds: number) => Promise<void>;
interface SetAdd {
  members: string[];
  seconds: number;
  send: SendAdd;
}

const scopes = new AsyncLocalStorage<Scope>();

/** A promise whose failure is observed by whoever awaits it later, never reported as unhandled meanwhile. */
function held<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}

/** Express step: the rest of the request (our pre-steps and oidc-provider) runs in its own scope. */
export function tokenRequestScope(_req: Request, _res: Response, next: NextFunction): void {
  scopes.run({ ahead: new Map(), shared: new Map(), writes: [], adds: new Map() }, next);
}

/** Starts `read` now for the step that asks for `key` later in this request (a newer start replaces an older). */
export function readAhead(key: string, read: () => Promise<unknown>): void {
  scopes.getStore()?.ahead.set(key, held(read()));
}

/** The read of `key` started ahead in this request, taken; otherwise `read()`. */
export function readOnce<T>(key: string, read: () => Promise<T>): Promise<T> {
  const scope = scopes.getStore();
  const ahead = scope?.ahead.get(key);
  if (!ahead) return read();
  scope!.ahead.delete(key);
  return ahead as Promise<T>;
}

/** The request's one read of `key` (started now if no step started it); outside a scope, `read()`. */
export function sharedRead<T>(key: string, read: () => Promise<T>): Promise<T> {
  const scope = scopes.getStore();
  if (!scope) return read();
  let p = scope.shared.get(key) as Promise<T> | undefined;
  if (!p) scope.shared.set(key, (p = held(read())));
  return p;
}

/** In a scope: `write` is left in flight and the response waits for it (settleWrites). Outside: awaited. */
export async function writeBehind(write: Promise<void>): Promise<void> {
  const scope = scopes.getStore();
  if (!scope) return write;
  scope.writes.push(held(write));
}

/**
 * The writes sent so far in this request, once all landed (their failures are settleWrites' to
 * report), or null when none is in flight: a step that reads, consumes or deletes a record after
 * it awaits this, so it never overtakes a write (a script's write resent after NOSCRIPT leaves later).
 */
export function writesLanded(): Promise<unknown> | null {
  const writes = scopes.getStore()?.writes;
  return writes && writes.length > 0 ? Promise.allSettled(writes) : null;
}

/** In a scope: `member` joins the others bound for set `key`, one command when the writes settle. Outside: sent now. */
export async function addBehind(key: string, member: string, seconds: number, send: SendAdd): Promise<void> {
  const scope = scopes.getStore();
  if (!scope) return send([member], seconds);
  const add = scope.adds.get(key);
  if (!add) scope.adds.set(key, { members: [member], seconds, send });
  else {
    add.members.push(member);
    add.seconds = Math.max(add.seconds, seconds);
  }
}

/**
 * oidc-provider post-step: a response is sent only once every write of its request landed; the
 * first failure fails it (as the write awaited in place did). A request that failed already goes
 * on failing: its tokens are never answered.
 */
export function settleWrites() {
  return async function settleStorageWrites(_ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
    await next();
    const scope = scopes.getStore();
    if (!scope) return;
    while (scope.writes.length > 0 || scope.adds.size > 0) {
      for (const add of scope.adds.values()) scope.writes.push(held(add.send(add.members, add.seconds)));
      scope.adds.clear();
      const writes = scope.writes.splice(0);
      const failed = (await Promise.allSettled(writes)).find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    }
  };
}
