/** `svc scim` (docs/cli.md "SCIM"): a workspace's SCIM provisioning, the owner's (docs/auth-service.md "SCIM provisioning"). */
import { CliError, EXIT } from './errors.ts';
import { answer, api, workspaceOf, type Caller, type Options } from './manage-common.ts';
import { columns } from './table.ts';
import type { Io } from './run.ts';

export async function scimCommand(io: Io, c: Caller, v: Options, args: string[]): Promise<void> {
  const [sub, id] = args;
  const ws = await workspaceOf(c, v);
  switch (sub ?? 'show') {
    case 'show': {
      const r = await answer(api(c).scimSettings({ params: { workspace: ws } }), 'scim show');
      return io.result(r, [
        `Tenant URL: ${r.endpoint}`,
        `The directory holds ${r.users} people and ${r.groups} groups.`,
        ...(r.tokens.length
          ? columns(r.tokens, [
              ['id', 'ID'],
              ['prefix', 'TOKEN'],
              ['created_at', 'MADE', { time: true }],
            ])
          : ['No SCIM token. Make one: svc scim create-token']),
      ]);
    }
    case 'create-token': {
      const r = await answer(api(c).createScimToken({ params: { workspace: ws } }), 'scim create-token');
      // The token alone on stdout (or in the JSON), the rest on stderr, as a new key is.
      if (io.json) return io.secret(JSON.stringify(r, null, 2));
      io.err(`SCIM token ${r.id} made. Give your directory the tenant URL ${r.endpoint} and this token:`);
      io.secret(r.token);
      return io.err('Copy it now: it is not shown again.');
    }
    case 'revoke-token': {
      if (!id) throw new CliError('Which token? svc scim revoke-token <id> (ids: svc scim show).', EXIT.usage);
      await answer(api(c).revokeScimToken({ params: { workspace: ws, id } }), 'scim revoke-token');
      return io.result({ id, revoked: true }, [`SCIM token ${id} revoked: the directory's requests with it are refused.`]);
    }
    default:
      throw new CliError('Use svc scim show|create-token|revoke-token <id>.', EXIT.usage);
  }
}
