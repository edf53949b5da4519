/** One JSON-RPC call to the gateway's MCP endpoint with a bearer credential. */
export async function mcpCall(
  baseUrl: string,
  slug: string,
  bearer: string,
  method = 'tools/call',
  params: unknown = { name: 'svc_help', arguments: {} },
) {
  const res = await fetch(`${baseUrl}/mcp/${slug}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${bearer}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as { result?: unknown; error?: { message: string; data?: { code?: string } } },
  };
}
