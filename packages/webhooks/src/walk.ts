/**
 * The worker's walk through the workspaces with endpoints (docs/webhooks.md "Fair delivery"). It is
 * kept between turns: each turn goes on from where the last one stopped (the set's SSCAN cursor and
 * the workspaces read but not yet visited), round to the start and on, and visits a workspace at
 * most once. So every endpoint with work is reached in turn, however many come before it.
 */

/** A place in the walk: a workspace, and the last endpoint started there when a turn stopped inside it. */
export interface WalkStop {
  ws: string;
  /** Endpoints up to this id (in id order) had their turn this pass; null: none did. */
  after: string | null;
}

/** One SSCAN step: the next cursor and a batch of workspaces. */
export type WorkspaceScan = (cursor: string) => Promise<[string, string[]]>;

export interface WorkspaceWalk {
  /** The next stops, at most `n`, none of them in `seen` (this turn's visits, which it adds to). */
  take(n: number, seen: Set<string>): Promise<WalkStop[]>;
  /** Puts stops back in front: the next turn begins with them. */
  putBack(stops: readonly WalkStop[]): void;
}

export function workspaceWalk(scan: WorkspaceScan): WorkspaceWalk {
  let cursor = '0';
  const queue: WalkStop[] = [];
  return {
    async take(n, seen) {
      const out: WalkStop[] = [];
      let passesBegun = 0;
      while (out.length < n) {
        const next = queue.shift();
        if (!next) {
          // At the end of a pass the walk starts again; a second new pass in one call means the set is empty.
          if (cursor === '0' && ++passesBegun > 1) break;
          const [following, batch] = await scan(cursor);
          cursor = following;
          for (const ws of batch) queue.push({ ws, after: null });
          continue;
        }
        if (seen.has(next.ws)) {
          // Round again to where this turn began: the next turn goes on from here.
          queue.unshift(next);
          break;
        }
        seen.add(next.ws);
        out.push(next);
      }
      return out;
    },
    putBack(stops) {
      queue.unshift(...stops);
    },
  };
}
