/**
 * An upstream's answer is parsed within UPSTREAM_LIMITS.answerJson (answer.ts): whatever JSON a
 * server sends, as one body or as the events of a stream cut anywhere, an answer that nests
 * deeper or holds more values than the bounds (all its events counted together) is refused
 * `too_large` before the parser reads it; one within them is read as sent.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { answerReader, UpstreamFailure, type Answer } from '../src/answer.ts';
import { UPSTREAM_LIMITS } from '../src/limits.ts';

const { maxDepth, maxValues } = UPSTREAM_LIMITS.answerJson;
const expected = { id: 7, inSession: false };
const response = (result: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 7, result });
const notification = (params: unknown) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params });

/** The body fed to a reader in the pieces given (cut at any byte), and what it ends with. */
function read(type: string, body: string, cuts: number[]): Answer | UpstreamFailure {
  const bytes = Buffer.from(body);
  const reader = answerReader({ status: 200, headers: { 'content-type': type } }, expected);
  try {
    let at = 0;
    for (const cut of [...cuts.map((c) => c % (bytes.length + 1)).sort((a, b) => a - b), bytes.length]) {
      const answer = reader.data(bytes.subarray(at, Math.max(at, cut)));
      at = Math.max(at, cut);
      if (answer) return answer;
    }
    return reader.end();
  } catch (err) {
    if (err instanceof UpstreamFailure) return err;
    throw err;
  }
}

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const many = (n: number) => `[${Array.from({ length: n }, () => '{}').join(',')}]`;

/** A hostile answer: too deep, too many values in one message, or too many across the events before the response. */
const hostile = fc.oneof(
  fc
    .integer({ min: maxDepth + 1, max: maxDepth * 50 })
    .map((d) => ({ messages: [response({ content: JSON.parse(nested(d)) as unknown })] })),
  fc.integer({ min: maxValues + 1, max: maxValues * 3 }).map((n) => ({ messages: [response({ rows: JSON.parse(many(n)) as unknown })] })),
  fc.integer({ min: 2, max: 8 }).map((events) => ({
    messages: [
      ...Array.from({ length: events }, () => notification(JSON.parse(many(Math.ceil(maxValues / events) + 10)) as unknown)),
      response({ content: [] }),
    ],
  })),
);

const asStream = (messages: string[]) => messages.map((m) => `event: message\ndata: ${m}\n\n`).join('');

test('an answer past the JSON bounds is refused too_large, as a body or as a stream cut anywhere', () => {
  fc.assert(
    fc.property(hostile, fc.array(fc.nat(), { maxLength: 6 }), ({ messages }, cuts) => {
      const outcomes =
        messages.length === 1
          ? [read('application/json', messages[0]!, cuts), read('text/event-stream', asStream(messages), cuts)]
          : [read('text/event-stream', asStream(messages), cuts)];
      for (const o of outcomes) {
        assert.ok(o instanceof UpstreamFailure, 'refused');
        assert.equal(o.reason, 'too_large', o.message);
      }
    }),
    { numRuns: 40 },
  );
});

test('an answer within the bounds is read as sent', () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 8 }), fc.array(fc.nat(), { maxLength: 6 }), (value, cuts) => {
      const result = { content: [{ type: 'text', text: 'x' }], structuredContent: { value } };
      const plain = JSON.parse(JSON.stringify(result)) as unknown;
      for (const o of [
        read('application/json', response(result), cuts),
        read('text/event-stream', asStream([notification({ n: 1 }), response(result)]), cuts),
      ]) {
        assert.ok(!(o instanceof UpstreamFailure), o instanceof UpstreamFailure ? o.message : '');
        assert.deepEqual(o.result, plain);
      }
    }),
    { numRuns: 100 },
  );
});
