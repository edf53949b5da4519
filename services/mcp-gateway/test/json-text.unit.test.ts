/** Answers serialized once (docs/gateway-pipeline.md "Answers serialized once"). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonText, jsonTextWith, keepText, sizedJsonText } from '../src/http/json-text.ts';

test('a kept value answers the same text as JSON.stringify, and cannot be changed after', () => {
  const value = keepText({ content: [{ type: 'text', text: 'line "one"\n\u00e9\u2028' }], n: 1 });
  const first = jsonText(value);
  assert.equal(first, JSON.stringify(value));
  assert.equal(jsonText(value), first);
  assert.throws(() => ((value as { n: number }).n = 2), TypeError, 'frozen');
  assert.equal(jsonText({ a: 1 }), '{"a":1}', 'a value not kept is serialized each time');
  for (const v of [null, 1, 'x', [1, 2], undefined]) assert.equal(jsonText(v), JSON.stringify(v));
});

test('a kept text carries its UTF-8 length (the Content-Length), counted once; any other, none', () => {
  for (const text of ['plain', 'caf\u00e9 \u2028 \u{1f600}', '"quoted" \\ \n', '']) {
    const value = keepText({ content: [{ type: 'text', text }] });
    for (let i = 0; i < 2; i++) {
      const sized = sizedJsonText(value);
      assert.equal(sized.text, JSON.stringify(value));
      assert.equal(sized.bytes, Buffer.byteLength(sized.text), `${JSON.stringify(text)}: its length in bytes`);
    }
  }
  assert.equal(sizedJsonText({ a: 'caf\u00e9' }).bytes, null, 'a value not kept is measured when written');
  assert.equal(sizedJsonText('x').bytes, null);
});

test('members joined as text give the same object as merging, with its length, and are refused when a name is taken', () => {
  const members = { resultType: 'complete', _meta: { who: 'sv\u00e7' }, ttlMs: 5 };
  const text = JSON.stringify(members).slice(1, -1);
  const bytes = Buffer.byteLength(text);
  for (const value of [keepText({ tools: [{ name: '\u00e0' }] }), {}, keepText({}), { content: [], isError: true }]) {
    const joined = jsonTextWith(value, members, text, bytes);
    assert.ok(joined);
    assert.deepEqual(JSON.parse(joined.text), { ...value, ...members });
    // Known for a kept value and for {} alone; a value not kept is measured when written.
    if (joined.bytes !== null) assert.equal(joined.bytes, Buffer.byteLength(joined.text));
    else assert.ok(Object.keys(value).length > 0, 'only a value not kept goes without its length');
  }
  assert.equal(jsonTextWith({ _meta: { own: 1 } }, members, text, bytes), null);
  assert.equal(jsonTextWith({ resultType: 'incomplete' }, members, text, bytes), null);
});
