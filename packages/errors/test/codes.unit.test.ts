/** The error catalogue's JSON-RPC codes keep the rule of docs/errors.md. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ERROR_CODES, SvcError, toJsonRpcError } from '@svc/errors';

const JSON_RPC = new Set([-32700, -32600, -32601, -32602, -32603]);
const MCP_2026 = new Set([-32020, -32021, -32022]);

test('one JSON-RPC code per error, and none undefined in the ranges JSON-RPC and MCP reserve', () => {
  const seen = new Map<number, string>();
  for (const e of ERROR_CODES) {
    assert.ok(!seen.has(e.rpc), `${e.code} and ${seen.get(e.rpc)} share ${e.rpc}`);
    seen.set(e.rpc, e.code);
    const reserved = e.rpc >= -32768 && e.rpc <= -32000;
    if (reserved) assert.ok(JSON_RPC.has(e.rpc) || MCP_2026.has(e.rpc), `${e.code}: ${e.rpc} is reserved and undefined`);
    else assert.ok(e.rpc >= -31099 && e.rpc <= -31001, `${e.code}: the project's own codes are -31001..-31099`);
  }
});

test('the spec messages, word for word, with their statuses', () => {
  const byCode = new Map(ERROR_CODES.map((e) => [e.code, e]));
  assert.deepEqual(
    ['missing_authentication', 'invalid_api_key', 'invalid_token', 'rate_limited', 'method_not_allowed'].map((c) => [
      byCode.get(c as never)?.message,
      byCode.get(c as never)?.status,
    ]),
    [
      ['Missing authentication', 401],
      ['Invalid API key', 401],
      ['Invalid OAuth token', 401],
      ['Rate limit exceeded', 429],
      ['405 Method Not Allowed', 405],
    ],
  );
  const body = toJsonRpcError(new SvcError('quota_exhausted'), 7);
  assert.deepEqual(
    [body.id, body.error.code, body.error.message, body.error.data.code],
    [7, -31021, 'Monthly query limit reached', 'quota_exhausted'],
  );
});
