/** A JSON-RPC method error: sent in the body with HTTP 200 (docs/conventions.md "Errors"). */
export class RpcError extends Error {
  override name = 'RpcError';
  readonly code: number;
  readonly data: Record<string, unknown> | undefined;

  constructor(code: number, message: string, data?: Record<string, unknown>) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const ACCESS_DENIED = -32003;
