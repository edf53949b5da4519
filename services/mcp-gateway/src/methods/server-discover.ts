/** server/discover (MCP 2026-07-28 "Discovery"): versions, capabilities and guidance, before any other call. */
import { INSTRUCTIONS, SUPPORTED_PROTOCOL_VERSIONS } from '../mcp/protocol.ts';
import type { MethodHandler } from './types.ts';

export function serverDiscover(): MethodHandler {
  return async () => ({
    supportedVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS,
  });
}
