/**
 * What discovery makes of an upstream's tools/list (docs/upstream-servers.md "Policy rows"): each
 * tool checked and bounded, then merged into the rows svc keeps. A tool found at registration starts
 * on at its default row; one found later starts off (`new`); a changed description, schema or
 * annotation waits for an admin (`changed`, the old one still offered); a tool no longer listed is
 * `missing` (its row is kept, so an admin's choices survive a redeploy of the upstream), within the
 * rows and bytes an upstream's rows may hold (UPSTREAM_LIMITS.rowsPerUpstream, rowBytesPerUpstream).
 */
import { defaultPolicy } from './defaults.ts';
import { UPSTREAM_LIMITS } from './limits.ts';
import { listedName } from './names.ts';
import type { ToolDescriptor, UpstreamTool } from './types.ts';

/** The tools an upstream listed, checked: those kept, by name, and why others were left out. */
export interface Discovered {
  tools: Map<string, ToolDescriptor>;
  problems: string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The tools of a tools/list answer that svc can offer, each bounded (UPSTREAM_LIMITS). */
export function checkTools(upstream: string, listed: unknown[]): Discovered {
  const tools = new Map<string, ToolDescriptor>();
  const left = { name: 0, twice: 0, schema: 0, size: 0, count: 0, total: 0 };
  let bytes = 0;
  for (const raw of listed) {
    if (!isObject(raw) || typeof raw['name'] !== 'string' || !listedName(upstream, raw['name'])) {
      left.name++;
      continue;
    }
    if (tools.has(raw['name'])) {
      left.twice++;
      continue;
    }
    const input = raw['inputSchema'];
    if (!isObject(input) || input['type'] !== 'object') {
      left.schema++;
      continue;
    }
    const descriptor: ToolDescriptor = {
      description: typeof raw['description'] === 'string' ? raw['description'] : '',
      inputSchema: input,
      ...(typeof raw['title'] === 'string' ? { title: raw['title'] } : {}),
      ...(isObject(raw['outputSchema']) ? { outputSchema: raw['outputSchema'] } : {}),
      ...(isObject(raw['annotations']) ? { annotations: raw['annotations'] } : {}),
    };
    const size = Buffer.byteLength(JSON.stringify(descriptor));
    if (size > UPSTREAM_LIMITS.descriptorBytes) {
      left.size++;
      continue;
    }
    if (tools.size >= UPSTREAM_LIMITS.toolsPerUpstream) {
      left.count++;
      continue;
    }
    if (bytes + size > UPSTREAM_LIMITS.bytesPerUpstream) {
      left.total++;
      continue;
    }
    bytes += size;
    tools.set(raw['name'], descriptor);
  }
  const problems: string[] = [];
  if (left.name)
    problems.push(`${left.name} tool(s) left out: a name svc cannot list (letters, digits, _ and -; at most 64 with the prefix)`);
  if (left.twice) problems.push(`${left.twice} tool(s) left out: a name listed before`);
  if (left.schema) problems.push(`${left.schema} tool(s) left out: no object inputSchema`);
  if (left.size) problems.push(`${left.size} tool(s) left out: larger than ${UPSTREAM_LIMITS.descriptorBytes} bytes`);
  if (left.count) problems.push(`${left.count} tool(s) left out: more than ${UPSTREAM_LIMITS.toolsPerUpstream}`);
  if (left.total) problems.push(`${left.total} tool(s) left out: past ${UPSTREAM_LIMITS.bytesPerUpstream} bytes of tools for one server`);
  return { tools, problems };
}

/** The same descriptor, whatever the order of its keys. */
function sameDescriptor(a: ToolDescriptor, b: ToolDescriptor): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** What a discovery changes of an upstream's rows. */
export interface Merged {
  /** The rows that differ from `existing`, to write. */
  rows: UpstreamTool[];
  /** The tools whose rows are deleted: `missing` ones past the upstream's bounds, those missing longest. */
  remove: string[];
  /** Why tools the upstream lists were left out. */
  problems: string[];
}

/**
 * The rows after a discovery: `existing` (this upstream's rows) merged with what was found, within
 * the upstream's bounds (docs/upstream-servers.md "Bounds"). The tools found come first, in the
 * server's order, each counted with the change it has waiting; one past rowBytesPerUpstream is left
 * out, as if not listed. Every other row is `missing`, kept while the rows and bytes allow, the
 * most recently missing first; the rest are deleted.
 */
export function mergeTools(
  upstream: string,
  existing: readonly UpstreamTool[],
  found: ReadonlyMap<string, ToolDescriptor>,
  now: number,
  atRegistration: boolean,
): Merged {
  const { rowsPerUpstream, rowBytesPerUpstream } = UPSTREAM_LIMITS;
  const rows: UpstreamTool[] = [];
  const byName = new Map(existing.map((t) => [t.name, t]));
  const listed = new Set<string>();
  let bytes = 0;
  for (const [name, descriptor] of found) {
    const row = byName.get(name);
    const next = row
      ? merged(row.state === 'missing' ? present(row) : row, descriptor)
      : {
          upstream,
          name,
          descriptor,
          pending: null,
          policy: defaultPolicy(descriptor, atRegistration),
          state: atRegistration ? ('listed' as const) : ('new' as const),
          firstSeen: now,
        };
    const size = rowBytes(next ?? row!);
    if (bytes + size > rowBytesPerUpstream) continue;
    bytes += size;
    listed.add(name);
    if (next) rows.push(next);
  }
  const missing = existing
    .filter((row) => !listed.has(row.name))
    .map((row) => (row.state === 'missing' ? row : { ...row, state: 'missing' as const, pending: null, missingSince: now }))
    .sort((a, b) => (b.missingSince ?? 0) - (a.missingSince ?? 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const remove: string[] = [];
  let count = listed.size;
  for (const row of missing) {
    const size = rowBytes(row);
    // Once one row goes, every row missing longer goes too.
    if (remove.length || count >= rowsPerUpstream || bytes + size > rowBytesPerUpstream) {
      remove.push(row.name);
      continue;
    }
    count++;
    bytes += size;
    if (row !== byName.get(row.name)) rows.push(row);
  }
  const left = found.size - listed.size;
  const problems = left
    ? [`${left} tool(s) left out: past ${rowBytesPerUpstream} bytes of rows for one server, changes waiting included`]
    : [];
  return { rows, remove, problems };
}

/** What a row holds of descriptors, as rowBytesPerUpstream counts it: its own and the change waiting. */
function rowBytes(row: UpstreamTool): number {
  return Buffer.byteLength(JSON.stringify(row.descriptor)) + (row.pending ? Buffer.byteLength(JSON.stringify(row.pending)) : 0);
}

/** A `missing` row listed again: no longer missing since. */
function present({ missingSince: _since, ...row }: UpstreamTool): UpstreamTool {
  return row;
}

/** One known tool seen again: its new row, or null when nothing changed. */
function merged(row: UpstreamTool, descriptor: ToolDescriptor): UpstreamTool | null {
  // A tool not yet turned on has nothing to protect: it takes what the upstream says now.
  if (row.state === 'new') return sameDescriptor(row.descriptor, descriptor) ? null : { ...row, descriptor };
  if (sameDescriptor(row.descriptor, descriptor)) return row.state === 'listed' ? null : { ...row, state: 'listed', pending: null };
  if (row.pending && sameDescriptor(row.pending, descriptor) && row.state === 'changed') return null;
  return { ...row, state: 'changed', pending: descriptor };
}
