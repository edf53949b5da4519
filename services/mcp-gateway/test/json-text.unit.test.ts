/** Answers serialized once (docs/gateway-pipeline.md "Answers serialized once"). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonText, jsonTextWith, keepText } from '../src/http/json-text.ts';

test('a kept value answers the same text as JSON.stringify, and cannot be changed after', () => {
  const value = keepText({ content: [{ type: 'text', text: 'line "one"\n\u00e9\u2028' }], n: 1 });
  const first = jsonText(value);
  assert.equal(first, JSON.stringify(value));
  assert.equal(jsonText(value), first);
  assert.throws(() => ((value as { n: number }).n = 2), TypeError, 'frozen');
  assert.equal(jsonText({ a: 1 }), '{"a":1}', 'a value not kept is serialized each time');
  for (const v of [null, 1, 'x', [1, 2], undefined]) assert.equal(jsonText(v), JSON.stringify(v));
});

test('members joined as text give the same object as merging, and are refused when a name is taken', () => {
  const members = { resultType: 'complete', _meta: { who: 'svc' }, ttlMs: 5 };
  const text = JSON.stringify(members).slice(1, -1);
  for (const value of [keepText({ tools: [{ name: 'a' }] }), {}, keepText({}), { content: [], isError: true }]) {
    const joined = jsonTextWith(value, members, text);
    assert.ok(joined);
    assert.deepEqual(JSON.parse(joined), { ...value, ...members });
  }
  assert.equal(jsonTextWith({ _meta: { own: 1 } }, members, text), null);
  assert.equal(jsonTextWith({ resultType: 'incomplete' }, members, text), null);
});
