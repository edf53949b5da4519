/**
 * An upstream tool's arguments are checked at the top level of its schema only
 * (upstreams/argument-check.ts): on the subset it reads, its verdict is ajv's; and whatever a
 * hostile upstream writes in its schema (nesting, patterns that backtrack, combinators over
 * references), the check reads nothing below a property's `type`, so its cost follows the
 * arguments and never the schema.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { topLevelCheck } from '../src/upstreams/argument-check.ts';

const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'] as const;
/** Names of properties, Object.prototype's among them (ajv's generated code reads `__proto__` unlike JSON: it is tested apart). */
const NAMES = ['a', 'b', 'title', 'n', 'constructor', 'toString'];

/** A schema of the subset the check reads: typed properties, required names, maybe closed. */
const topLevelSchema = fc.record({
  type: fc.constant('object'),
  properties: fc.dictionary(
    fc.constantFrom(...NAMES),
    fc.oneof(
      fc.record({ type: fc.constantFrom(...TYPES) }),
      fc.record({ type: fc.uniqueArray(fc.constantFrom(...TYPES), { minLength: 1, maxLength: 3 }) }),
      fc.constant({ description: 'any value' }),
    ),
  ),
  required: fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 3 }),
  additionalProperties: fc.boolean(),
});

const argumentsObject = fc.dictionary(
  fc.constantFrom(...NAMES, 'extra'),
  fc.oneof(
    fc.string(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.nat()),
    fc.object(),
  ),
);

test('on the top-level subset, the check and ajv agree on every call', () => {
  // ownProperties: a name such as toString is the argument's only when the object has it (JSON's meaning).
  const ajv = new Ajv2020({ strict: false, allErrors: false, ownProperties: true });
  fc.assert(
    fc.property(topLevelSchema, argumentsObject, (schema, args) => {
      const plain = JSON.parse(JSON.stringify(args)) as Record<string, unknown>;
      const problem = topLevelCheck(schema)(plain);
      const ajvSays = ajv.validate(schema, plain);
      assert.equal(problem === null, ajvSays, `${JSON.stringify(schema)} ${JSON.stringify(plain)}: ${problem}`);
    }),
    { numRuns: 500 },
  );
});

test('the problem names the argument and what is wrong with it', () => {
  const check = topLevelCheck({
    type: 'object',
    properties: { title: { type: 'string' }, n: { type: ['integer', 'null'] } },
    required: ['title'],
    additionalProperties: false,
  });
  assert.equal(check({}), 'missing required argument "title"');
  assert.equal(check({ title: 1 }), 'title must be string');
  assert.equal(check({ title: 't', n: 1.5 }), 'n must be integer or null');
  assert.equal(check({ title: 't', other: 1 }), 'unknown argument "other"');
  assert.equal(check({ title: 't', n: null }), null);
  // Parsed, as an upstream's schema is: a literal's __proto__ would set its prototype.
  const proto = topLevelCheck(JSON.parse('{"properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}'));
  assert.equal(proto(JSON.parse('{}') as Record<string, unknown>), 'missing required argument "__proto__"');
  assert.equal(proto(JSON.parse('{"__proto__":null}') as Record<string, unknown>), '__proto__ must be string');
  assert.equal(proto(JSON.parse('{"__proto__":"x"}') as Record<string, unknown>), null);
  for (const schema of [null, 'x', [], { properties: 'x', required: 'x' }, { properties: { a: null }, required: [1, {}] }])
    assert.equal(topLevelCheck(schema)({ a: 1 }), null, `${JSON.stringify(schema)} checks nothing it cannot read`);
});

/** `value` wrapped so that reading any key of it, or below it, is recorded with its path. */
function watched(value: unknown, path: string[], reads: string[][]): unknown {
  if (typeof value !== 'object' || value === null) return value;
  return new Proxy(value, {
    get(target, key, receiver) {
      const at = [...path, String(key)];
      reads.push(at);
      return watched(Reflect.get(target, key, receiver), at, reads);
    },
    ownKeys(target) {
      reads.push([...path, '*']);
      return Reflect.ownKeys(target);
    },
  });
}

/** Schemas an upstream may write to make a checker work: deep nesting, backtracking patterns, combinators over references. */
const hostileSchema = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    fc.record({ type: fc.constantFrom(...TYPES), pattern: fc.constantFrom('^(a+)+$', '^(a|a)*b$', '(x+x+)+y') }),
    fc.record({ anyOf: fc.array(tie('node'), { maxLength: 3 }) }),
    fc.record({ allOf: fc.array(tie('node'), { maxLength: 3 }) }),
    fc.record({ $ref: fc.constantFrom('#', '#/$defs/a', '#/properties/a') }),
    fc.record({ type: fc.constant('object'), properties: fc.dictionary(fc.constantFrom(...NAMES), tie('node')) }),
  ),
  schema: fc.record({
    type: fc.constant('object'),
    properties: fc.dictionary(fc.constantFrom(...NAMES), tie('node')),
    required: fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 3 }),
    $defs: fc.dictionary(fc.constantFrom('a', 'b'), tie('node')),
    patternProperties: fc.constant({ '^(a+)+$': { type: 'string' } }),
    anyOf: fc.array(tie('node'), { maxLength: 2 }),
  }),
})).schema;

test("whatever the schema holds, nothing below a property's type is read, when built or when checking", () => {
  fc.assert(
    fc.property(hostileSchema, argumentsObject, (schema, args) => {
      const reads: string[][] = [];
      const check = topLevelCheck(watched(schema, [], reads));
      check({ ...args, a: 'a'.repeat(40) + '!' });
      for (const at of reads) {
        const [top, name, key] = at;
        const allowed =
          (at.length === 1 && ['properties', 'required', 'additionalProperties', 'type'].includes(top!)) ||
          (top === 'properties' && at.length <= 2) ||
          (top === 'properties' && at.length === 3 && (key === 'type' || key === '*')) ||
          (top === 'required' && at.length === 2) ||
          (top === 'properties' && name !== undefined && at.length === 4 && at[2] === 'type');
        assert.ok(allowed, `read ${at.join('.')}`);
      }
    }),
    { numRuns: 500 },
  );
});
