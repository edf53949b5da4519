/**
 * The discovery steps `svc doctor` shows (docs/cli.md "svc doctor"): each URL tried, with what it
 * answered and whether that is what the MCP authorization rules ask (✓), a problem for some
 * client (✗), or only worth knowing (·). Pure: read from the observations.
 */
import { documentOf, seen, type ProbeResult } from './probe.ts';
import { corsAllows, resourceMatches } from './verdicts.ts';
import { challengeParams, type AuthServerProbes, type Observations } from './walk.ts';

export type Mark = 'ok' | 'bad' | 'info';

export interface Finding {
  mark: Mark;
  /** What was checked, in a few words. */
  what: string;
  url?: string;
  /** What was seen, or what is wrong. */
  seen: string;
}

/** The draft Server Card's one accepted `$schema` (experimental-ext-server-card schema.ts). */
const CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';

const mark = (good: boolean): Mark => (good ? 'ok' : 'bad');

function endpointFindings(o: Observations): Finding[] {
  const r = o.mcp;
  const params = challengeParams(r.headers['www-authenticate']);
  if (r.status === 401) {
    const named = params['resource_metadata'];
    return [
      {
        mark: mark(named !== undefined),
        what: 'POST without a credential',
        url: o.target,
        seen: named
          ? `401, the challenge names resource_metadata=${named}${params['scope'] ? ` and scope="${params['scope']}"` : ''}`
          : '401 without resource_metadata in WWW-Authenticate: clients must guess the metadata URL',
      },
    ];
  }
  const open = r.status !== null && r.status >= 200 && r.status < 300;
  return [
    {
      mark: open ? 'info' : 'bad',
      what: 'POST without a credential',
      url: o.target,
      seen: open ? `${seen(r)}: no credential needed` : seen(r),
    },
  ];
}

function prmFinding(what: string, r: ProbeResult | undefined, o: Observations, others: boolean): Finding[] {
  if (!r) return [];
  const doc = documentOf(r);
  if (!doc)
    return [
      {
        mark: others && r.status === 404 ? 'info' : 'bad',
        what,
        url: r.url,
        seen: others && r.status === 404 ? '404 (fine: another location answers)' : seen(r),
      },
    ];
  const resource = doc['resource'];
  const servers = doc['authorization_servers'];
  const matches = typeof resource === 'string' && resourceMatches(o.target, resource);
  return [
    {
      mark: mark(matches),
      what,
      url: r.url,
      seen: `200, resource ${JSON.stringify(resource)}${matches ? '' : ` is not ${o.target}`}, authorization_servers ${JSON.stringify(servers)}`,
    },
  ];
}

function authServerFindings(issuer: string, probes: AuthServerProbes): Finding[] {
  const found = probes.candidates.find((c) => documentOf(c.result));
  const list: Finding[] = probes.candidates.map((c) => ({
    mark: documentOf(c.result) ? 'ok' : found && c.result.status === 404 ? 'info' : 'bad',
    what: c.kind === 'oauth' ? 'RFC 8414 metadata' : 'OpenID discovery',
    url: c.url,
    seen: documentOf(c.result) ? '200' : seen(c.result),
  }));
  const doc = found ? documentOf(found.result)! : null;
  if (!doc) return list;
  const methods = doc['code_challenge_methods_supported'];
  const auth = doc['token_endpoint_auth_methods_supported'];
  list.push(
    {
      mark: mark(doc['issuer'] === issuer),
      what: 'issuer',
      seen: `${JSON.stringify(doc['issuer'])}${doc['issuer'] === issuer ? '' : ` is not ${issuer} (RFC 8414 §3.3)`}`,
    },
    {
      mark: mark(Array.isArray(methods) && methods.includes('S256')),
      what: 'PKCE',
      seen: `code_challenge_methods_supported ${JSON.stringify(methods)}`,
    },
    {
      mark: mark(typeof doc['registration_endpoint'] === 'string'),
      what: 'dynamic registration',
      seen: String(doc['registration_endpoint'] ?? 'no registration_endpoint'),
    },
    {
      mark: mark(doc['client_id_metadata_document_supported'] === true),
      what: 'Client ID Metadata Documents',
      seen: `client_id_metadata_document_supported ${JSON.stringify(doc['client_id_metadata_document_supported'] ?? null)}`,
    },
    {
      mark: mark(Array.isArray(auth) && auth.includes('none')),
      what: 'public clients',
      seen: `token_endpoint_auth_methods_supported ${JSON.stringify(auth)}`,
    },
    {
      mark: mark(doc['authorization_response_iss_parameter_supported'] === true),
      what: 'iss in authorization responses',
      seen:
        doc['authorization_response_iss_parameter_supported'] === true
          ? 'advertised (RFC 9207)'
          : 'not advertised: clients cannot detect a mix-up (RFC 9207; MCP 2026-07-28 SHOULD)',
    },
  );
  return list;
}

function corsFindings(o: Observations): Finding[] {
  const origin = o.browserOrigin;
  const allowed = (r: ProbeResult | undefined) =>
    corsAllows(r, origin) ? `allows ${origin}` : `no Access-Control-Allow-Origin for ${origin}`;
  const prm = [o.prm.challenge, o.prm.path, o.prm.root].find((r) => documentOf(r));
  const as = Object.values(o.authServers)[0];
  const asDoc = as?.candidates.find((c) => documentOf(c.result))?.result;
  const exposed = (o.mcpBrowser.headers['access-control-expose-headers'] ?? '').toLowerCase();
  const list: Finding[] = [
    {
      mark: mark(corsAllows(o.mcpPreflight, origin)),
      what: 'CORS preflight of the MCP endpoint',
      url: o.target,
      seen: allowed(o.mcpPreflight),
    },
    {
      mark: mark(exposed.includes('www-authenticate') || exposed.includes('*')),
      what: "CORS: the 401's challenge readable",
      url: o.target,
      seen: o.mcpBrowser.status === 403 ? `403: the origin ${origin} is refused` : `Access-Control-Expose-Headers: ${exposed || '(none)'}`,
    },
  ];
  if (prm)
    list.push({ mark: mark(corsAllows(prm, origin)), what: 'CORS of the protected-resource metadata', url: prm.url, seen: allowed(prm) });
  if (asDoc)
    list.push({
      mark: mark(corsAllows(asDoc, origin)),
      what: 'CORS of the authorization server metadata',
      url: asDoc.url,
      seen: allowed(asDoc),
    });
  for (const [what, r] of [
    ['registration', as?.registrationPreflight],
    ['token', as?.tokenPreflight],
  ] as const) {
    if (r)
      list.push({
        mark: mark(corsAllows(r, origin)),
        what: `CORS preflight of the ${what} endpoint`,
        url: r.url,
        seen: `${seen(r)}, ${allowed(r)}`,
      });
  }
  return list;
}

function cardFinding(what: string, r: ProbeResult): Finding {
  const doc = documentOf(r);
  if (!doc)
    return {
      mark: r.status === 404 ? 'info' : 'bad',
      what,
      url: r.url,
      seen: r.status === 404 ? '404: none (optional; SEP-2127 draft)' : seen(r),
    };
  const remote = Array.isArray(doc['remotes']) ? (doc['remotes'][0] as Record<string, unknown> | undefined) : undefined;
  const auth = remote?.['auth'] as { posture?: unknown; methods?: { type?: unknown; registration?: unknown }[] } | undefined;
  const methods = (auth?.methods ?? [])
    .map((m) => (m.type === 'oauth' ? `oauth (${String(m.registration ?? 'dynamic')})` : String(m.type)))
    .join(', ');
  const valid = doc['$schema'] === CARD_SCHEMA && typeof doc['name'] === 'string' && typeof doc['version'] === 'string';
  return {
    mark: mark(valid),
    what,
    url: r.url,
    seen: `${valid ? '' : `$schema is not ${CARD_SCHEMA}; `}${String(doc['name'])} ${String(doc['version'])}, remote ${String(remote?.['url'] ?? '(none)')}${auth ? `, auth ${String(auth.posture ?? 'required')}${methods ? `: ${methods}` : ''}` : ''}`,
  };
}

/** Every step shown, in the order a client meets them. */
export function findingsOf(o: Observations): Finding[] {
  const anyPrm = [o.prm.challenge, o.prm.path, o.prm.root].some((r) => documentOf(r));
  return [
    ...endpointFindings(o),
    ...prmFinding('metadata named by the challenge', o.prm.challenge, o, false),
    ...prmFinding('metadata at the path-inserted URL', o.prm.path, o, false),
    ...prmFinding('metadata at the root URL', o.prm.root, o, anyPrm),
    ...Object.entries(o.authServers).flatMap(([issuer, probes]) => authServerFindings(issuer, probes)),
    ...corsFindings(o),
    cardFinding('Server Card at /.well-known/mcp.json', o.cards.wellKnown),
    cardFinding('Server Card at <endpoint>/server-card', o.cards.reserved),
  ];
}
