/**
 * The metric series a service's /metrics shows, for tests that hold label values to bounded sets
 * (docs/security.md "Bounds"): a series is its name and labels, its value aside.
 */
export async function svcMetricSeries(baseUrl: string): Promise<Set<string>> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  return new Set(
    text
      .split('\n')
      .filter((l) => l.startsWith('svc_'))
      .map((l) => l.replace(/ [^ ]+$/, '')),
  );
}
