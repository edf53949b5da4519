/** `svc webhooks` (docs/cli.md "Webhooks"): a workspace's webhook endpoints, the owner's (docs/webhooks.md). */
import { CliError, EXIT } from './errors.ts';
import { answer, api, given, need, workspaceOf, type Caller, type Options } from './manage-common.ts';
import { columns, statusStyle } from './table.ts';
import type { Io } from './run.ts';
import { listenCommand } from './webhooks-listen.ts';

/** A signing secret: alone on stdout (or in the JSON), the rest on stderr, as a new key is. */
function secretOnce(io: Io, value: object & { secret: string }, summary: string): void {
  if (io.json) return io.secret(JSON.stringify(value, null, 2));
  io.err(summary);
  io.secret(value.secret);
  io.err('Copy it now: it is not shown again. Your receiver verifies each delivery with it (docs/webhooks.md).');
}

/** `--events a,b` as the list the contract takes (the server checks each name). */
const eventsOf = (v: Options): string[] | undefined =>
  given(v, 'events')
    ?.split(',')
    .map((e) => e.trim())
    .filter(Boolean);

export async function webhooksCommand(io: Io, c: Caller, v: Options, args: string[]): Promise<void> {
  const [sub, id] = args;
  if (sub === 'listen') return listenCommand(io, c, v);
  const ws = await workspaceOf(c, v);
  const which = (verb: string): { workspace: string; id: string } => {
    if (!id) throw new CliError(`Which endpoint? svc webhooks ${verb} <id> (ids: svc webhooks list).`, EXIT.usage);
    return { workspace: ws, id };
  };
  const verb = sub ?? 'list';
  switch (verb) {
    case 'list': {
      const { webhooks } = await answer(api(c).listWebhooks({ params: { workspace: ws } }), 'webhooks list');
      const rows = webhooks.map((w) => ({
        ...w,
        events: w.events.join(','),
        state: w.failing ? 'failing' : w.enabled ? 'enabled' : 'disabled',
      }));
      return io.result(
        { webhooks },
        rows.length
          ? columns(rows, [
              ['id', 'ID'],
              ['url', 'URL', { free: true }],
              ['events', 'EVENTS', { free: true }],
              ['state', 'STATUS', { style: statusStyle }],
              ['last_error', 'LAST ERROR', { free: true }],
            ])
          : ['No webhook endpoints. Add one: svc webhooks create --url https://example.com/hooks --events key.created,key.revoked'],
      );
    }
    case 'create': {
      const body = {
        url: need(v, 'url', '--url https://example.com/hooks'),
        events: (eventsOf(v) ?? []) as never,
        ...(given(v, 'description') === undefined ? {} : { description: given(v, 'description')! }),
      };
      const r = await answer(api(c).createWebhook({ params: { workspace: ws }, body }), 'webhooks create');
      return secretOnce(io, r, `Webhook endpoint ${r.id} created for ${r.events.join(', ')}.`);
    }
    case 'update': {
      const events = eventsOf(v);
      const enabled = v['enable'] === true ? true : v['disable'] === true ? false : undefined;
      const body = {
        ...(given(v, 'url') === undefined ? {} : { url: given(v, 'url')! }),
        ...(events === undefined ? {} : { events: events as never }),
        ...(given(v, 'description') === undefined ? {} : { description: given(v, 'description')! }),
        ...(enabled === undefined ? {} : { enabled }),
      };
      const r = await answer(api(c).updateWebhook({ params: which('update'), body }), 'webhooks update');
      return io.result(r, [`Webhook endpoint ${r.id}: ${r.url}, ${r.events.join(', ')}, ${r.enabled ? 'enabled' : 'disabled'}.`]);
    }
    case 'delete':
      await answer(api(c).deleteWebhook({ params: which('delete') }), 'webhooks delete');
      return io.result({ id, removed: true }, [`Webhook endpoint ${String(id)} removed.`]);
    case 'rotate': {
      const r = await answer(api(c).rotateWebhookSecret({ params: which('rotate') }), 'webhooks rotate');
      return secretOnce(io, r, `New signing secret for ${r.id}; the old one also signs until ${String(r.previous_until)}.`);
    }
    case 'test':
      await answer(api(c).testWebhook({ params: which('test') }), 'webhooks test');
      return io.result({ id, queued: true }, [`A webhook.test event is on its way; see it with: svc webhooks deliveries ${String(id)}`]);
    case 'deliveries': {
      const { deliveries } = await answer(api(c).listWebhookDeliveries({ params: which('deliveries') }), 'webhooks deliveries');
      return io.result(
        { deliveries },
        deliveries.length
          ? columns(deliveries, [
              ['at', 'TIME', { time: true }],
              ['type', 'EVENT'],
              ['attempt', 'ATTEMPT'],
              ['status', 'STATUS'],
              ['duration_ms', 'MS'],
              ['error', 'ERROR', { free: true }],
            ])
          : ['No deliveries yet.'],
      );
    }
    default:
      throw new CliError('Use svc webhooks list|create|update <id>|delete <id>|rotate <id>|test <id>|deliveries <id>|listen.', EXIT.usage);
  }
}
