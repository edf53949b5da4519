/**
 * The gateway's one router (docs/gateway-pipeline.md "One router"): a table of resources, each a
 * path with the routes of the methods it takes. A path is matched whole, a `{name}` is one path
 * segment handed over as it was sent (percent-encoded: the route decodes it, so it decides what a
 * malformed encoding means), one trailing slash and the query are ignored. A method the resource
 * does not take goes to its `otherMethods` route (a 405 naming the methods), or, without one,
 * on to the next resources and at last the not-found route.
 */

export interface Resource<R> {
  /** `/mcp/{slug}`; a path ending in `/*` is a prefix (anything may follow it). */
  path: string;
  /** Letters match in either case (the paths Express served matched so: docs/gateway-pipeline.md). */
  anyCase?: true;
  /** Each method's route, in the order the Allow header names them. */
  methods: Readonly<Record<string, R>>;
  /** The route of every other method, made once with the Allow header's value. */
  otherMethods?: (allow: string) => R;
}

export interface RouteMatch<R> {
  route: R;
  /** The path's parameters, raw (percent-encoded). */
  params: Record<string, string>;
  /** The path as sent, without the query. */
  path: string;
}

interface Compiled<R> {
  pattern: RegExp;
  names: string[];
  methods: ReadonlyMap<string, R>;
  other: R | undefined;
}

/** The router of `resources` (tried in order: the hot path first) with `notFound` for every other request. */
export function createRouter<R>(resources: readonly Resource<R>[], notFound: R): (method: string, url: string) => RouteMatch<R> {
  const compiled = resources.map((r) => compile(r));
  return function match(method, url) {
    const end = pathEnd(url);
    const path = end === url.length ? url : url.slice(0, end);
    for (const c of compiled) {
      const m = c.pattern.exec(path);
      if (!m) continue;
      const route = c.methods.get(method) ?? c.other;
      if (route === undefined) continue;
      const params: Record<string, string> = {};
      for (let i = 0; i < c.names.length; i++) params[c.names[i]!] = m[i + 1]!;
      return { route, params, path };
    }
    return { route: notFound, params: {}, path };
  };
}

function compile<R>(r: Resource<R>): Compiled<R> {
  const names: string[] = [];
  const prefix = r.path.endsWith('/*');
  const body = (prefix ? r.path.slice(0, -1) : r.path)
    .replace(/[.+?^$()[\]\\|]/g, '\\$&')
    .replace(/\{(\w+)\}/g, (_m, name: string) => (names.push(name), '([^/]+)'));
  const pattern = new RegExp(prefix ? `^${body}` : `^${body}/?$`, r.anyCase ? 'i' : '');
  const methods = new Map(Object.entries(r.methods));
  return { pattern, names, methods, other: r.otherMethods?.([...methods.keys()].join(', ')) };
}

/** Where the path of a request target ends: at its query or fragment. */
function pathEnd(url: string): number {
  for (let i = 0; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 63 /* ? */ || c === 35 /* # */) return i;
  }
  return url.length;
}
