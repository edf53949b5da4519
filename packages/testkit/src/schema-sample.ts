/**
 * A value a JSON Schema accepts, for tests generated from declarations (the management
 * operations' bodies, the dashboard's forms): the default, the first of an enum, the first
 * alternative, else the least value of its type. Required properties only.
 */
export function sampleOf(schema: object): unknown {
  const s = schema as Record<string, unknown>;
  if ('default' in s) return s['default'];
  if (Array.isArray(s['enum'])) return s['enum'][0];
  for (const alt of ['oneOf', 'anyOf'] as const) if (Array.isArray(s[alt])) return sampleOf(s[alt][0] as object);
  const type = Array.isArray(s['type']) ? (s['type'] as string[]).find((t) => t !== 'null') : s['type'];
  if (type === 'object') {
    const props = (s['properties'] ?? {}) as Record<string, object>;
    return Object.fromEntries(((s['required'] ?? []) as string[]).map((k) => [k, sampleOf(props[k] ?? {})]));
  }
  if (type === 'array') return Number(s['minItems'] ?? 0) > 0 ? [sampleOf((s['items'] ?? {}) as object)] : [];
  if (type === 'boolean') return true;
  if (type === 'integer' || type === 'number') return Number(s['minimum'] ?? 1);
  if (s['format'] === 'email') return 'someone@example.com';
  if (s['format'] === 'uri') return 'https://example.com/hook';
  return 'x'.repeat(Math.max(1, Number(s['minLength'] ?? 1)));
}
