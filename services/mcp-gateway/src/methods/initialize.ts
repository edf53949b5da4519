/** initialize (MCP lifecycle): echo a supported protocol version, else offer the latest. */
import { LATEST_PROTOCOL_VERSION, isSupportedVersion } from '../mcp/protocol.ts';
import type { MethodHandler } from './types.ts';

export function initialize(deps: { version: string }): MethodHandler {
  return async (params) => {
    const asked = typeof params['protocolVersion'] === 'string' ? params['protocolVersion'] : '';
    return {
      protocolVersion: isSupportedVersion(asked) ? asked : LATEST_PROTOCOL_VERSION,
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: 'svc', title: 'svc project knowledge', version: deps.version },
      instructions: 'Call svc_help to see which tools you can call here and what keeps the others out.',
    };
  };
}
