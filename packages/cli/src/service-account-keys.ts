/**
 * `svc service-accounts keys|set-keys|remove-keys <id>` (docs/cli.md "Managing a project"): the
 * public keys a service account's OAuth client signs its `private_key_jwt` assertions with
 * (docs/auth-service.md "Client credentials"), over the management API.
 */
import { readFile } from 'node:fs/promises';
import type { CallResult, managementClient, OperationDeclaration } from '@svc/management/contract';
import { CliError, EXIT } from './errors.ts';
import type { JsonResponse } from './http.ts';
import type { Io } from './run.ts';

type Api = ReturnType<typeof managementClient<JsonResponse>>;
type Answer = <O extends OperationDeclaration, A>(call: Promise<CallResult<O, JsonResponse, A>>, what: string) => Promise<A>;
type Client = {
  client_id: string;
  token_endpoint: string;
  resources: string[];
  jwks: Record<string, unknown> | null;
  jwks_uri: string | null;
};

/** The client's keys and a one-line way to get a token with them. */
function describe(c: Client): string[] {
  const keys = c.jwks_uri ?? ((c.jwks?.['keys'] as { kid?: string }[] | undefined) ?? []).map((k) => k.kid).join(', ');
  return [
    `client_id       ${c.client_id}`,
    `token endpoint  ${c.token_endpoint} (grant_type=client_credentials, private_key_jwt)`,
    `resources       ${c.resources.join(' ')}`,
    `keys            ${keys || 'none: set them with svc service-accounts set-keys <id> --jwks-file jwks.json'}`,
    `SDK (v2)        new PrivateKeyJwtProvider({ clientId: '${c.client_id}', privateKey, algorithm: 'ES256' })`,
  ];
}

/** Reads a JWK Set file. */
async function jwksFrom(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new CliError(`Cannot read ${file}.`, EXIT.usage);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new CliError(`${file} is not JSON: give a public JWK Set, {"keys": [...]}.`, EXIT.usage);
  }
}

export async function serviceAccountKeysCommand(
  io: Io,
  api: Api,
  answer: Answer,
  sub: 'keys' | 'set-keys' | 'remove-keys',
  params: { workspace: string; id: string },
  v: Record<string, unknown>,
): Promise<void> {
  if (sub === 'keys') {
    const c = await answer(api.getServiceAccountClient({ params }), 'service-accounts keys');
    return io.result(c, describe(c));
  }
  if (sub === 'remove-keys') {
    const r = await answer(api.removeServiceAccountClientKeys({ params }), 'service-accounts remove-keys');
    return io.result(r, [r.removed ? `Keys of ${params.id} removed; its client stops authenticating now.` : `${params.id} had no keys.`]);
  }
  const file = typeof v['jwks-file'] === 'string' ? v['jwks-file'] : undefined;
  const uri = typeof v['jwks-uri'] === 'string' ? v['jwks-uri'] : undefined;
  if ((file === undefined) === (uri === undefined))
    throw new CliError('Give one of --jwks-file jwks.json (a public JWK Set) or --jwks-uri https://...', EXIT.usage);
  const body = uri === undefined ? { jwks: (await jwksFrom(file!)) as { keys: { kty: 'EC'; kid: string }[] } } : { jwks_uri: uri };
  const c = await answer(api.setServiceAccountClientKeys({ params, body }), 'service-accounts set-keys');
  return io.result(c, [`Keys of ${params.id} set.`, ...describe(c)]);
}
