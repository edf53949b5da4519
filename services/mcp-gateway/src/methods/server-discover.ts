/** server/discover (MCP 2026-07-28 "Discovery"): versions, capabilities and guidance, before any other call. */
import { keepText } from '../http/json-text.ts';
import { AUTHORIZATION_EXTENSIONS, INSTRUCTIONS, SUPPORTED_PROTOCOL_VERSIONS, TASKS_EXTENSION } from '../mcp/protocol.ts';
import type { MethodHandler } from './types.ts';

/** The server/discover handler: one answer for every caller. */
export function serverDiscover(): MethodHandler {
  // The same for everyone: serialized once (docs/gateway-pipeline.md "Answers serialized once").
  const result = keepText({
    supportedVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
    capabilities: { tools: {}, extensions: { ...AUTHORIZATION_EXTENSIONS, [TASKS_EXTENSION]: {} } },
    instructions: INSTRUCTIONS,
  });
  return async () => result;
}
