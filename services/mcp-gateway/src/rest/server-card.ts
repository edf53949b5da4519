/**
 * The MCP Server Card (docs/server-card.md): a public, static description of the gateway's MCP
 * endpoints for clients, registries and `svc doctor`, before any connection. Shape: SEP-2127 as
 * the experimental-ext-server-card `schema.ts` states it, with SEP-2742's `auth` block on each
 * remote (docs/decisions.md "Server Card: which drafts"). Built from what the gateway already
 * declares: its name and version, the revisions it speaks, the MCP path, the scopes and the
 * authorization server its protected-resource metadata names.
 */
import { createHash } from 'node:crypto';
import { MCP_SCOPES } from '@svc/policy';
import { SERVER_INFO, SUPPORTED_PROTOCOL_VERSIONS } from '../mcp/protocol.ts';
import type { Step } from '../pipeline/exchange.ts';
import { respondEmpty, respondText } from '../pipeline/run.ts';

/** The only `$schema` the draft accepts: versioned by `/v1/`, not by date. */
const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
/** The media type of a Server Card (experimental-ext-server-card docs/discovery.md). */
const SERVER_CARD_TYPE = 'application/mcp-server-card+json';
/** The `_meta` key of what a client could also discover, kept for operators and `svc doctor`. */
const SVC_DISCOVERY_META = 'dev.svc/discovery';

/** docs/discovery.md "CORS Requirements": a card is public and read-only, so any origin may read it. */
const CARD_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET',
  'Access-Control-Allow-Headers': 'Content-Type, If-None-Match',
  'Access-Control-Expose-Headers': 'ETag',
  // As long as the protected-resource metadata it names (public-steps.ts): a deploy shows within minutes.
  'Cache-Control': 'public, max-age=300',
};

export interface CardSource {
  baseUrl: string;
  authUrl: string;
  version: string;
}

/** The card's `name`: the gateway host in reverse-DNS order, then `/svc` (an IP address is kept as it is). */
function cardName(baseUrl: string): string {
  const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '').replace(/:/g, '.');
  const reversed = /^[\d.]+$/.test(host) ? host : host.split('.').reverse().join('.');
  return `${reversed}/svc`;
}

/**
 * One remote: the MCP endpoint of one project (`slug`), or of any (`{project}`, a variable the
 * client asks for). SEP-2742 `auth`: required before any request; OAuth with a Client ID Metadata
 * Document (the 2026-07-28 preference; dynamic registration is offered too, see `_meta`) or a key.
 */
function remote(source: CardSource, slug: string | null) {
  return {
    type: 'streamable-http',
    url: `${source.baseUrl}/mcp/${slug ?? '{project}'}`,
    ...(slug === null
      ? { variables: { project: { description: 'The slug of your svc project (svc projects lists them)', isRequired: true } } }
      : {}),
    supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
    auth: {
      posture: 'required',
      preferred: 'oauth',
      methods: [
        { type: 'oauth', registration: 'client-metadata', clientCredential: 'none' },
        {
          type: 'headers',
          headers: [
            {
              name: 'X-API-Key',
              description: 'A project key, or your own from svc login (svc auth token)',
              isRequired: true,
              isSecret: true,
              placeholder: 'svc_pk_...',
            },
          ],
        },
      ],
    },
  };
}

/** The Server Card of one project's endpoint, or (slug null) the templated card of every project. */
function serverCard(source: CardSource, slug: string | null): Record<string, unknown> {
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: cardName(source.baseUrl),
    version: source.version,
    title: SERVER_INFO.title,
    description: 'Project knowledge tools over MCP: one endpoint per svc project, OAuth or a key',
    remotes: [remote(source, slug)],
    _meta: {
      [SVC_DISCOVERY_META]: {
        // RFC 9728 §3.1: the path-inserted location; for the template, `{project}` as in the URL.
        protectedResourceMetadata: `${source.baseUrl}/.well-known/oauth-protected-resource/mcp/${slug ?? '{project}'}`,
        authorizationServers: [source.authUrl],
        scopesSupported: [...MCP_SCOPES],
        registration: ['client-metadata', 'dynamic'],
      },
    },
  };
}

/**
 * GET the card: the JSON with a strong ETag, 304 when `If-None-Match` names it (docs/discovery.md
 * "Caching"). `slugOf` reads the project from the path (already checked), or null for the template.
 */
export function serverCardDocument(source: CardSource, slugOf: (params: Record<string, string>) => string | null): Step {
  return function serverCardDocument(ex) {
    const text = JSON.stringify(serverCard(source, slugOf(ex.params)));
    const etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
    ex.headers = { ...ex.headers, ...CARD_HEADERS, ETag: etag };
    const match = ex.req.headers['if-none-match'];
    if (match && match.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) return respondEmpty(ex, 304);
    respondText(ex, text, 200, SERVER_CARD_TYPE);
  };
}

/** The card's CORS preflight. */
export const serverCardPreflight: Step = function serverCardPreflight(ex) {
  ex.headers = { ...ex.headers, ...CARD_HEADERS };
  respondEmpty(ex, 204);
};
