/** initialize (MCP 2025-11-25 lifecycle): echo a supported earlier-era version, else offer the latest. */
import { INSTRUCTIONS, isLegacyVersion, LATEST_LEGACY_VERSION, SERVER_INFO } from '../mcp/protocol.ts';
import type { MethodHandler } from './types.ts';

export function initialize(deps: { version: string }): MethodHandler {
  return async (params) => {
    const asked = typeof params['protocolVersion'] === 'string' ? params['protocolVersion'] : '';
    return {
      protocolVersion: isLegacyVersion(asked) ? asked : LATEST_LEGACY_VERSION,
      capabilities: { tools: { listChanged: false } },
      serverInfo: { ...SERVER_INFO, version: deps.version },
      instructions: INSTRUCTIONS,
    };
  };
}
