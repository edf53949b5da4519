/**
 * What each client family would do with what `svc doctor` saw (docs/cli.md "svc doctor"): its
 * discovery order walked over the observations, ending at "would sign in" (and how) or at the
 * first step where it would stop, with the reason and the remedy. Pure: no request is sent here.
 */
import type { ClientFamily, PrmSource, Registration } from './families.ts';
import { documentOf, seen, type ProbeResult } from './probe.ts';
import type { AuthServerProbes, Observations } from './walk.ts';

export interface Verdict {
  family: string;
  name: string;
  ok: boolean;
  /** What a person must do first for it to sign in (register a client by hand), when anything. */
  setup?: string;
  /** The path it would take, step by step, as far as it got. */
  path: string[];
  stoppedAt?: string;
  reason?: string;
  remedy?: string;
}

/** Where a family stops, thrown by a step and caught once in verdictOf. */
class Stop extends Error {
  readonly at: string;
  readonly remedy: string;

  constructor(at: string, reason: string, remedy: string) {
    super(reason);
    this.at = at;
    this.remedy = remedy;
  }
}

const REGISTRATION_NAMES: Record<Registration, string> = {
  cimd: 'a Client ID Metadata Document',
  dcr: 'dynamic client registration (RFC 7591)',
  preregistered: 'a client id registered by hand and entered in the client',
};

const PRM_NAMES: Record<PrmSource, string> = {
  challenge: "the 401 challenge's resource_metadata",
  path: 'the path-inserted well-known URL',
  root: 'the root well-known URL',
};

/** RFC 9728 §3.3 as the TypeScript SDK applies it: same origin, and the metadata's path a prefix of the called one. */
export function resourceMatches(called: string, resource: string): boolean {
  if (!URL.canParse(resource)) return false;
  const [a, b] = [new URL(called), new URL(resource)];
  const slash = (p: string) => (p.endsWith('/') ? p : `${p}/`);
  return a.origin === b.origin && slash(a.pathname).startsWith(slash(b.pathname));
}

/** Whether a browser at `origin` may read `r` (Fetch §3.2.5: `*` or the origin itself). */
export function corsAllows(r: ProbeResult | undefined, origin: string): boolean {
  const allow = r?.headers['access-control-allow-origin'];
  return allow === '*' || allow === origin;
}

function listed(header: string | undefined, name: string): boolean {
  return (header ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .some((h) => h === name || h === '*');
}

/** The first answer of a discovery list a family accepts, or why it stopped. */
function firstDocument(
  f: ClientFamily,
  tries: { label: string; result: ProbeResult | undefined }[],
  at: string,
): { label: string; doc: Record<string, unknown>; result: ProbeResult } | null {
  for (const t of tries) {
    if (!t.result) continue;
    const doc = documentOf(t.result);
    if (doc) return { label: t.label, doc, result: t.result };
    const serverError = t.result.failure !== undefined || (t.result.status ?? 0) >= 500;
    if (f.strictErrors && serverError)
      throw new Stop(
        at,
        `${t.result.url} answered ${seen(t.result)}, and it does not try further`,
        'Answer 404 where there is no document, and 200 with the document where there is.',
      );
  }
  return null;
}

function endpointStep(o: Observations, path: string[]): 'open' | 'challenge' {
  const r = o.mcp;
  if (r.failure)
    throw new Stop(
      'the MCP endpoint',
      `POST ${o.target}: ${seen(r)}`,
      'Check the URL, and that the server answers within the bounds (--timeout).',
    );
  if (r.status !== null && r.status >= 200 && r.status < 300) {
    path.push('the endpoint answers without a credential');
    return 'open';
  }
  if (r.status !== 401)
    throw new Stop(
      'the MCP endpoint',
      `POST without a credential answered ${seen(r)}, not 401`,
      'Answer a request without a credential with 401 and WWW-Authenticate: Bearer resource_metadata="…" (MCP authorization, RFC 9728 §5.1).',
    );
  path.push('401 without a credential');
  return 'challenge';
}

function resourceStep(f: ClientFamily, o: Observations, path: string[]): string {
  const browserCanRead = !f.browser || listed(o.mcpBrowser.headers['access-control-expose-headers'], 'www-authenticate');
  const sources = f.prm.filter((s) => s !== 'challenge' || browserCanRead);
  let found: ReturnType<typeof firstDocument>;
  try {
    found = firstDocument(
      f,
      sources.map((s) => ({ label: PRM_NAMES[s], result: o.prm[s] })),
      'protected-resource metadata',
    );
  } catch (err) {
    // The TypeScript SDK 1.x catches any failure of this discovery and goes on as without metadata.
    if (!f.originFallback) throw err;
    found = null;
  }
  if (!found) {
    if (f.originFallback) {
      path.push('no protected-resource metadata: the MCP origin taken as authorization server (MCP 2025-03-26)');
      return new URL(o.target).origin;
    }
    throw new Stop(
      'protected-resource metadata',
      `none at ${sources.map((s) => PRM_NAMES[s]).join(', ')}`,
      `Serve RFC 9728 metadata at ${new URL(o.target).origin}/.well-known/oauth-protected-resource${new URL(o.target).pathname.replace(/\/$/, '')} and name it in the 401's resource_metadata.`,
    );
  }
  if (f.browser && !corsAllows(found.result, o.browserOrigin))
    throw new Stop(
      'protected-resource metadata',
      `${found.result.url} does not allow ${o.browserOrigin} by CORS`,
      'Send Access-Control-Allow-Origin: * on the metadata.',
    );
  const resource = found.doc['resource'];
  if (f.checksResource && (typeof resource !== 'string' || !resourceMatches(o.target, resource)))
    throw new Stop(
      'protected-resource metadata',
      `its resource ${JSON.stringify(resource)} is not the endpoint ${o.target}`,
      `Make "resource" the MCP endpoint's own URL: ${o.target} (RFC 9728 §3.3).`,
    );
  const servers = found.doc['authorization_servers'];
  const issuer = Array.isArray(servers) ? servers[0] : undefined;
  if (typeof issuer !== 'string' || !URL.canParse(issuer))
    throw new Stop(
      'protected-resource metadata',
      'it names no authorization server',
      'List the authorization server\'s issuer in "authorization_servers".',
    );
  path.push(`metadata from ${found.label}`);
  return issuer;
}

function authServerStep(f: ClientFamily, o: Observations, issuer: string, path: string[]): Record<string, unknown> {
  const probes: AuthServerProbes | undefined = o.authServers[issuer];
  const found = firstDocument(
    f,
    (probes?.candidates ?? []).map((c) => ({ label: c.kind === 'oauth' ? 'RFC 8414 metadata' : 'OpenID discovery', result: c.result })),
    'authorization server metadata',
  );
  if (!found)
    throw new Stop(
      'authorization server metadata',
      `none for ${issuer} (${(probes?.candidates ?? []).map((c) => `${c.url}: ${seen(c.result)}`).join('; ')})`,
      `Serve ${issuer.replace(/\/$/, '')}/.well-known/oauth-authorization-server (RFC 8414) or OpenID discovery.`,
    );
  if (f.browser && !corsAllows(found.result, o.browserOrigin))
    throw new Stop(
      'authorization server metadata',
      `${found.result.url} does not allow ${o.browserOrigin} by CORS`,
      'Send Access-Control-Allow-Origin on the metadata.',
    );
  if (f.issuer === 'required' && typeof found.doc['issuer'] !== 'string')
    throw new Stop(
      'authorization server metadata',
      'it has no issuer, a member RFC 8414 §2 requires',
      'Put "issuer" in the metadata: the URL the protected-resource metadata names.',
    );
  if (f.issuer === 'compared' && found.doc['issuer'] !== issuer && found.doc['issuer'] !== issuer.replace(/\/$/, ''))
    throw new Stop(
      'authorization server metadata',
      `its issuer ${JSON.stringify(found.doc['issuer'])} is not ${issuer}`,
      'Make "issuer" exactly the URL the protected-resource metadata names (RFC 8414 §3.3).',
    );
  const methods = found.doc['code_challenge_methods_supported'];
  if (!Array.isArray(methods) || !methods.includes('S256'))
    throw new Stop(
      'authorization server metadata',
      'code_challenge_methods_supported does not list S256',
      'Offer PKCE with S256 and say so (MCP authorization).',
    );
  path.push(found.label);
  return found.doc;
}

function registrationStep(f: ClientFamily, o: Observations, issuer: string, as: Record<string, unknown>, path: string[]): Registration {
  const offered = (r: Registration) =>
    r === 'preregistered' ||
    (r === 'cimd' ? as['client_id_metadata_document_supported'] === true : typeof as['registration_endpoint'] === 'string');
  const chosen = f.registration.find(offered);
  if (!chosen)
    throw new Stop(
      'client registration',
      `it needs ${f.registration.map((r) => REGISTRATION_NAMES[r]).join(' or ')}, and the authorization server offers neither`,
      'Offer Client ID Metadata Documents (client_id_metadata_document_supported: true) or a registration_endpoint.',
    );
  const probes = o.authServers[issuer];
  if (f.browser && chosen === 'dcr' && !corsAllows(probes?.registrationPreflight, o.browserOrigin))
    throw new Stop(
      'client registration',
      `the registration endpoint's preflight does not allow ${o.browserOrigin}`,
      'Answer OPTIONS on the registration endpoint with CORS headers.',
    );
  if (f.browser && !corsAllows(probes?.tokenPreflight, o.browserOrigin))
    throw new Stop(
      'the token endpoint',
      `its preflight does not allow ${o.browserOrigin}`,
      'Answer OPTIONS on the token endpoint with CORS headers.',
    );
  path.push(REGISTRATION_NAMES[chosen]);
  return chosen;
}

function browserEndpointStep(o: Observations): void {
  if (o.mcpBrowser.status === 403)
    throw new Stop(
      'the MCP endpoint',
      `it refuses the origin ${o.browserOrigin} (403)`,
      `Allow ${o.browserOrigin} (on svc: ALLOWED_ORIGINS).`,
    );
  const pre = o.mcpPreflight;
  if (!corsAllows(pre, o.browserOrigin) || !listed(pre.headers['access-control-allow-headers'], 'authorization'))
    throw new Stop(
      'the MCP endpoint',
      `its preflight does not let ${o.browserOrigin} send Authorization`,
      `Allow ${o.browserOrigin} by CORS, with Authorization among the allowed headers.`,
    );
}

function revisionStep(f: ClientFamily, o: Observations): void {
  const remotes = documentOf(o.cards.reserved)?.['remotes'] ?? documentOf(o.cards.wellKnown)?.['remotes'];
  if (!Array.isArray(remotes)) return;
  const versions = remotes.flatMap((r: { supportedProtocolVersions?: unknown }) =>
    Array.isArray(r?.supportedProtocolVersions) ? r.supportedProtocolVersions : [],
  );
  if (versions.length && !versions.some((v) => f.revisions.includes(String(v))))
    throw new Stop(
      'protocol version',
      `the Server Card lists ${versions.join(', ')}; it speaks ${f.revisions.join(', ')}`,
      'Serve a revision this client speaks.',
    );
}

/** What `f` would do with what was seen. */
export function verdictOf(f: ClientFamily, o: Observations): Verdict {
  const path: string[] = [];
  try {
    revisionStep(f, o);
    if (endpointStep(o, path) === 'open') return { family: f.id, name: f.name, ok: true, path };
    if (f.browser) browserEndpointStep(o);
    const issuer = resourceStep(f, o, path);
    const as = authServerStep(f, o, issuer, path);
    const registration = registrationStep(f, o, issuer, as, path);
    const setup = registration === 'preregistered' ? `register a client at ${issuer} and enter its client id in the client` : undefined;
    return { family: f.id, name: f.name, ok: true, ...(setup ? { setup } : {}), path };
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
    return { family: f.id, name: f.name, ok: false, path, stoppedAt: err.at, reason: err.message, remedy: err.remedy };
  }
}
