/**
 * An audit entry as an OpenTelemetry log record (the OTLP/JSON mapping of opentelemetry-proto's
 * `logs/v1/logs.proto`: camelCase fields, 64-bit integers as decimal strings, AnyValue objects)
 * and as one flat JSON line with the same attribute names (docs/audit.md "Streaming").
 */
import type { AuditEntry } from '@svc/accounts';

/** The event name of every exported entry, and of the record reporting entries trimmed before export. */
const AUDIT_EVENT = 'svc.audit';
const AUDIT_GAP_EVENT = 'svc.audit.gap';

/** Entries the log's retention trimmed between the cursor and the oldest entry still kept. */
export interface AuditGap {
  workspace: string;
  /** The last entry exported (the cursor) and the first entry still kept: every id between them is gone. */
  after: string;
  before: string;
  /** How many, from the stream's count of entries ever added; null when the stream was recreated. */
  count: number | null;
}

type Value = string | number | Record<string, string>;
/** A record's attributes in order, before encoding (one source for both shapes). */
type Attributes = [string, Value][];

export interface Exported {
  /** Unix ms of the event. */
  at: number;
  event: string;
  severity: 'INFO' | 'WARN';
  body: string;
  attributes: Attributes;
}

/**
 * The record of one entry: only the listed fields leave (the log holds no secret: docs/audit.md "An
 * entry"), with who acted through what and the entry's link of the chain (docs/audit.md "Chain").
 */
export function entryRecord(e: AuditEntry): Exported {
  const attributes: Attributes = [
    // Stream ids are per log (two workspaces' entries can share one): the id names the workspace too.
    ['svc.audit.id', `${e.workspace}/${e.id}`],
    ['svc.workspace', e.workspace],
    ['svc.audit.actor', e.actor],
    ['svc.audit.action', e.action],
    ['svc.audit.target', e.target],
    ['svc.audit.source', e.source],
    ['svc.audit.request_id', e.requestId],
    ['svc.audit.detail', stringValues(e.detail ?? {})],
    ['svc.audit.principal', stringValues({ ...e.principal })],
    ['svc.audit.agent', stringValues({ ...e.agent, key: e.agent.key ?? '' })],
    ['svc.audit.chain', JSON.stringify(e.chain)],
  ];
  if (e.seq !== undefined && e.hash !== undefined)
    attributes.push(['svc.audit.seq', e.seq], ['svc.audit.prev', e.prev ?? ''], ['svc.audit.hash', e.hash]);
  return { at: e.at, event: AUDIT_EVENT, severity: 'INFO', body: e.action, attributes };
}

/** The one record saying which entries retention trimmed before they were exported. */
export function gapRecord(g: AuditGap, now: number): Exported {
  const attributes: Attributes = [
    // Receivers dedupe by svc.audit.id: a repeated gap report has the same one.
    ['svc.audit.id', `${g.workspace}/gap:${g.after}..${g.before}`],
    ['svc.workspace', g.workspace],
    ['svc.audit.gap.after', g.after],
    ['svc.audit.gap.before', g.before],
  ];
  if (g.count !== null) attributes.push(['svc.audit.gap.count', g.count]);
  const how = g.count === null ? 'Some' : String(g.count);
  return {
    at: now,
    event: AUDIT_GAP_EVENT,
    severity: 'WARN',
    body: `${how} audit entries of ${g.workspace} after ${g.after} and before ${g.before} were trimmed by retention before they were exported`,
    attributes,
  };
}

function stringValues(detail: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(detail)) out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return out;
}

/** OTLP/JSON AnyValue of one attribute value. */
function anyValue(v: Value): unknown {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'number') return { intValue: String(v) };
  return { kvlistValue: { values: Object.entries(v).map(([key, s]) => ({ key, value: { stringValue: s } })) } };
}

const SEVERITY = { INFO: 9, WARN: 13 } as const;

/** One LogRecord of an ExportLogsServiceRequest, as JSON text. */
export function otlpRecord(r: Exported, observedMs: number): string {
  return JSON.stringify({
    timeUnixNano: `${r.at}000000`,
    observedTimeUnixNano: `${observedMs}000000`,
    severityNumber: SEVERITY[r.severity],
    severityText: r.severity,
    eventName: r.event,
    body: { stringValue: r.body },
    attributes: r.attributes.map(([key, v]) => ({ key, value: anyValue(v) })),
  });
}

const RESOURCE = JSON.stringify({ attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] });
const SCOPE = JSON.stringify({ name: AUDIT_EVENT });
const HEAD = `{"resourceLogs":[{"resource":${RESOURCE},"scopeLogs":[{"scope":${SCOPE},"logRecords":[`;
const TAIL = ']}]}]}';

/** Bytes an ExportLogsServiceRequest adds around its records (and one comma between each two). */
export const OTLP_ENVELOPE_BYTES = HEAD.length + TAIL.length;

/** The ExportLogsServiceRequest body holding these encoded records. */
export function otlpBody(records: string[]): string {
  return `${HEAD}${records.join(',')}${TAIL}`;
}

/** One JSON line for a collector reading stdout: the same event name and attribute names, flat. */
export function jsonLine(r: Exported): string {
  const line: Record<string, unknown> = { time: new Date(r.at).toISOString(), event: r.event, severity: r.severity, body: r.body };
  for (const [k, v] of r.attributes) line[k] = v;
  return `${JSON.stringify(line)}\n`;
}
