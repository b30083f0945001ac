import { getLlama, LlamaLogLevel, type GbnfJsonSchema, type Llama } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grammarSchemaOf } from '../../server/core/bots/grammar-schema.js';
import {
  answerSchemaOfRequest,
  compileAnswerSchema,
  parseAnswer,
  PATTERN_TIMEOUT_MS,
  SCHEMA_MAX_BYTES,
  SCHEMA_MAX_DEPTH,
  withSchemaInstruction,
} from '../../server/core/bots/schema-answer.js';

// Mapping and validation only: no model is loaded. node-llama-cpp's own grammar builder (the prebuilt CPU
// binary, as the llama host uses it) checks that every mapped schema is one it accepts and that a sample
// answer passes both its grammar's validator and Ajv over the caller's whole schema.
let llama: Llama;
beforeAll(async () => {
  llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
});
afterAll(async () => llama.dispose());

const ANY = {
  oneOf: [
    { type: ['string', 'number', 'boolean', 'null'] },
    { type: 'object', additionalProperties: true },
    { type: 'array' },
  ],
};

interface Case {
  name: string;
  schema: Record<string, unknown>;
  grammar: unknown;
  /** An answer the grammar allows and the caller's schema accepts. */
  sample: unknown;
}

const cases: Case[] = [
  {
    name: 'object with a bounded string and a boolean; required is implied by emitting every property',
    schema: {
      type: 'object',
      properties: { answer: { type: 'string', maxLength: 200 }, confident: { type: 'boolean' } },
      required: ['answer', 'confident'],
    },
    grammar: {
      type: 'object',
      properties: { answer: { type: 'string', maxLength: 200 }, confident: { type: 'boolean' } },
    },
    sample: { answer: 'sunlight', confident: true },
  },
  {
    name: 'anyOf becomes oneOf',
    schema: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'integer' }] },
    grammar: { oneOf: [{ type: 'string', minLength: 1 }, { type: 'integer' }] },
    sample: 42,
  },
  {
    name: 'a simple allOf is merged, properties in order, the stricter bound kept',
    schema: {
      allOf: [
        { type: 'object', properties: { a: { type: 'string', maxLength: 9 } }, required: ['a'] },
        { properties: { a: { maxLength: 4 }, b: { type: 'number', minimum: 0 } }, required: ['b'] },
      ],
    },
    grammar: { type: 'object', properties: { a: { type: 'string', maxLength: 4 }, b: { type: 'number' } } },
    sample: { a: 'abc', b: 2.5 },
  },
  {
    name: 'pattern, format (other than dates), minimum and maximum are dropped for Ajv to check',
    schema: {
      type: 'object',
      properties: {
        code: { type: 'string', pattern: '^[A-Z@.]+$', format: 'email', minLength: 2 },
        n: { type: 'integer', minimum: 3, maximum: 9, multipleOf: 3 },
      },
    },
    grammar: { type: 'object', properties: { code: { type: 'string', minLength: 2 }, n: { type: 'integer' } } },
    sample: { code: 'A@B.CO', n: 6 },
  },
  {
    name: 'date formats are kept (node-llama-cpp has grammars for them)',
    schema: {
      type: 'object',
      properties: { day: { type: 'string', format: 'date' }, at: { type: 'string', format: 'date-time' } },
    },
    grammar: {
      type: 'object',
      properties: { day: { type: 'string', format: 'date' }, at: { type: 'string', format: 'date-time' } },
    },
    sample: { day: '2024-02-29', at: '2024-02-29T10:00:00Z' },
  },
  {
    name: 'const and enum of primitives stay; of objects and arrays they become literal schemas',
    schema: { type: 'object', properties: { kind: { enum: ['a', 1, null] }, fixed: { const: { x: [1, 'y'] } } } },
    grammar: {
      type: 'object',
      properties: {
        kind: { enum: ['a', 1, null] },
        fixed: {
          type: 'object',
          properties: { x: { type: 'array', prefixItems: [{ const: 1 }, { const: 'y' }], minItems: 2, maxItems: 2 } },
        },
      },
    },
    sample: { kind: null, fixed: { x: [1, 'y'] } },
  },
  {
    name: '$defs and $ref keep their names; definitions only used are carried',
    schema: {
      type: 'object',
      properties: { p: { $ref: '#/$defs/point' } },
      $defs: {
        point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'] },
        unused: { type: 'string' },
      },
    },
    grammar: {
      type: 'object',
      properties: { p: { $ref: '#/$defs/point' } },
      $defs: { point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } } } },
    },
    sample: { p: { x: 1, y: -2 } },
  },
  {
    name: 'draft-07 definitions and tuple items become $defs and prefixItems; additionalItems false closes the tuple',
    schema: {
      definitions: { n: { type: 'number' } },
      type: 'array',
      items: [{ $ref: '#/definitions/n' }, { type: 'string' }],
      additionalItems: false,
    },
    grammar: {
      type: 'array',
      prefixItems: [{ $ref: '#/$defs/n' }, { type: 'string' }],
      maxItems: 2,
      $defs: { n: { type: 'number' } },
    },
    sample: [3, 'three'],
  },
  {
    name: '2020-12 prefixItems with items and counts',
    schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      prefixItems: [{ type: 'boolean' }],
      items: { type: 'string' },
      minItems: 1,
      maxItems: 3,
    },
    grammar: { type: 'array', prefixItems: [{ type: 'boolean' }], items: { type: 'string' }, minItems: 1, maxItems: 3 },
    sample: [true, 'a'],
  },
  {
    name: 'a recursive schema (#) refers to the root as a hoisted definition',
    schema: {
      type: 'object',
      properties: {
        name: { type: 'string', maxLength: 20 },
        children: { type: 'array', items: { $ref: '#' }, maxItems: 2 },
      },
    },
    grammar: {
      type: 'object',
      properties: {
        name: { type: 'string', maxLength: 20 },
        children: { type: 'array', items: { $ref: '#/$defs/lectern-root' }, maxItems: 2 },
      },
      $defs: {
        'lectern-root': {
          type: 'object',
          properties: {
            name: { type: 'string', maxLength: 20 },
            children: { type: 'array', items: { $ref: '#/$defs/lectern-root' }, maxItems: 2 },
          },
        },
      },
    },
    sample: { name: 'root', children: [{ name: 'leaf', children: [] }] },
  },
  {
    name: 'type lists: plain ones stay a list, a shaped string splits into oneOf; nullable adds null',
    schema: {
      type: 'object',
      properties: {
        s: { type: ['string', 'null'], maxLength: 5 },
        v: { type: ['integer', 'boolean'] },
        o: { type: 'number', nullable: true },
      },
    },
    grammar: {
      type: 'object',
      properties: {
        s: { oneOf: [{ type: 'string', maxLength: 5 }, { type: 'null' }] },
        v: { type: ['integer', 'boolean'] },
        o: { type: ['number', 'null'] },
      },
    },
    sample: { s: null, v: false, o: null },
  },
  {
    name: 'objects: required but undeclared keys are added; a bare object stays open; additionalProperties schemas kept',
    schema: {
      type: 'object',
      properties: {
        id: { type: 'object', required: ['k'] },
        bag: { type: 'object' },
        counts: { additionalProperties: { type: 'integer' } },
      },
    },
    grammar: {
      type: 'object',
      properties: {
        id: { type: 'object', properties: { k: ANY } },
        bag: { type: 'object', properties: {}, additionalProperties: true },
        counts: { type: 'object', properties: {}, additionalProperties: { type: 'integer' } },
      },
    },
    sample: { id: { k: [1] }, bag: { any: 'thing' }, counts: { a: 1 } },
  },
  {
    name: 'anyOf beside a shape gives each branch the shape (the "at least one of" idiom)',
    schema: {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      anyOf: [{ required: ['a'] }, { required: ['b'] }],
    },
    grammar: {
      oneOf: [
        { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } },
        { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } },
      ],
    },
    sample: { a: 'x', b: 'y' },
  },
  {
    name: 'an empty schema, an unresolvable $ref and huge lengths: any value, left to Ajv',
    schema: {
      type: 'object',
      properties: { free: {}, elsewhere: { $ref: '#/properties/free' }, long: { type: 'string', maxLength: 100000 } },
    },
    grammar: { type: 'object', properties: { free: ANY, elsewhere: ANY, long: { type: 'string' } } },
    sample: { free: { x: 1 }, elsewhere: 'y', long: 'z' },
  },
];

describe('grammarSchemaOf: the caller schema on node-llama-cpp 3.21 subset', () => {
  it.each(cases)('$name', async ({ schema, grammar, sample }) => {
    const mapped = grammarSchemaOf(schema);
    expect(mapped).toEqual(grammar);
    const built = await llama.createGrammarForJsonSchema<GbnfJsonSchema, Record<any, any>>(mapped);
    expect(built.grammar).toMatch(/^root ::= /m);
    expect(built.parse(JSON.stringify(sample))).toEqual(sample);
    expect(compileAnswerSchema(schema).errorsOf(sample)).toEqual([]);
  });

  it('the grammar does restrict: a wrong type or an undeclared key fails its validator', async () => {
    const built = await llama.createGrammarForJsonSchema<GbnfJsonSchema, Record<any, any>>(
      grammarSchemaOf(cases[0]!.schema),
    );
    expect(() => built.parse('{"answer": 1, "confident": true}')).toThrow();
    expect(() => built.parse('{"answer": "x", "confident": true, "extra": 1}')).toThrow();
  });
});

describe('compileAnswerSchema', () => {
  const invalid = (schema: unknown) => {
    try {
      compileAnswerSchema(schema);
    } catch (err) {
      return err as { code: string; status: number; message: string };
    }
    throw new Error('compiled');
  };

  it("a schema Ajv cannot compile is 400 SCHEMA_INVALID with Ajv's message; remote refs are not fetched", () => {
    expect(invalid({ type: 'strin' })).toMatchObject({
      code: 'SCHEMA_INVALID',
      status: 400,
      message: expect.stringContaining('data/type must be equal to one of the allowed values'),
    });
    expect(invalid({ type: 'string', pattern: '(' }).message).toContain('Invalid regular expression');
    expect(invalid({ $ref: 'http://127.0.0.1:9/schema.json' }).message).toContain("can't resolve reference");
    expect(invalid({ $schema: 'http://json-schema.org/draft-04/schema#' }).message).toContain(
      'draft-07 (the default) or 2020-12',
    );
    for (const notAnObject of [[], 'string', true, null, 3])
      expect(invalid(notAnObject).message).toBe('schema must be a JSON Schema object');
  });

  it('draft-07 by default, 2020-12 when $schema says so; formats are checked; all errors reported', () => {
    const tuple = { type: 'array', prefixItems: [{ type: 'string' }] };
    expect(compileAnswerSchema(tuple).errorsOf([1])).toEqual([]); // prefixItems is not a draft-07 keyword
    const v2020 = compileAnswerSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...tuple });
    expect(v2020.errorsOf([1])).toEqual([expect.objectContaining({ path: '/0', keyword: 'type' })]);
    const draft07 = compileAnswerSchema({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { mail: { type: 'string', format: 'email' }, n: { type: 'integer', minimum: 5 } },
    });
    expect(draft07.errorsOf({ mail: 'nope', n: 1 }).map((e) => `${e.path} ${e.keyword}`)).toEqual([
      '/mail format',
      '/n minimum',
    ]);
    expect(draft07.errorsOf({ mail: 'a@b.co', n: 7 })).toEqual([]);
  });

  it('bounds size and depth', () => {
    const nest = (levels: number): Record<string, unknown> =>
      levels <= 1 ? { type: 'string' } : { type: 'array', items: nest(levels - 1) };
    // nest(n) is n objects deep; the limit counts nesting levels of the schema's JSON.
    expect(() => compileAnswerSchema(nest(SCHEMA_MAX_DEPTH / 2))).not.toThrow();
    expect(invalid(nest(SCHEMA_MAX_DEPTH + 1)).message).toContain(`deeper than ${SCHEMA_MAX_DEPTH}`);
    const big = { enum: Array.from({ length: 8000 }, (_, i) => `value-${i}`) };
    expect(JSON.stringify(big).length).toBeGreaterThan(SCHEMA_MAX_BYTES);
    expect(invalid(big)).toMatchObject({
      code: 'SCHEMA_INVALID',
      message: expect.stringContaining(`more than ${SCHEMA_MAX_BYTES}`),
    });
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    expect(invalid(cyclic).code).toBe('SCHEMA_INVALID');
  });

  it('a pattern that backtracks exponentially is cut off after its time limit and reported, not left to hang', () => {
    const s = compileAnswerSchema({
      type: 'object',
      properties: { a: { type: 'string', pattern: '^(a+)+$' }, b: { type: 'string', pattern: '^b$' } },
    });
    expect(s.errorsOf({ a: 'aaaa', b: 'b' })).toEqual([]);
    expect(s.errorsOf({ a: 'aaaa', b: 'c' })).toEqual([expect.objectContaining({ path: '/b', keyword: 'pattern' })]);
    const started = performance.now();
    const errors = s.errorsOf({ a: `${'a'.repeat(40)}!`, b: 'b' });
    expect(performance.now() - started).toBeLessThan(PATTERN_TIMEOUT_MS * 10);
    expect(errors).toEqual([
      expect.objectContaining({
        keyword: 'pattern',
        message: expect.stringContaining('took more than'),
        params: { pattern: '^(a+)+$' },
      }),
    ]);
  });

  it('stream with schema is 400 STREAM_WITH_SCHEMA; no schema is no schema', () => {
    expect(() => answerSchemaOfRequest({ schema: { type: 'string' }, stream: true })).toThrow(
      expect.objectContaining({ code: 'STREAM_WITH_SCHEMA', status: 400 }),
    );
    expect(answerSchemaOfRequest({ stream: true })).toBeUndefined();
    expect(answerSchemaOfRequest({ schema: { type: 'string' }, stream: false })?.schema).toEqual({ type: 'string' });
  });
});

describe('answers and prompts', () => {
  it('parseAnswer strips code fences, tolerates prose around one value, and says why it failed', () => {
    expect(parseAnswer('```json\n{"a": 1}\n```')).toEqual({ value: { a: 1 } });
    expect(parseAnswer('```\n[1, 2]```')).toEqual({ value: [1, 2] });
    expect(parseAnswer('Here you go: {"a": "b"} Hope it helps.')).toEqual({ value: { a: 'b' } });
    expect(parseAnswer(' "just a string" ')).toEqual({ value: 'just a string' });
    expect(parseAnswer('{"a": "unterminated', 'maxTokens')).toEqual({
      error: { path: '', keyword: 'json', message: expect.stringContaining('cut off at max_tokens') },
    });
    expect(parseAnswer('no json here')).toEqual({
      error: expect.objectContaining({ message: expect.stringContaining('not JSON') }),
    });
    expect(parseAnswer('  ')).toEqual({ error: expect.objectContaining({ message: 'the answer is empty' }) });
  });

  it('the schema instruction goes into the system message, or a new one before the others', () => {
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } } };
    const withSystem = withSchemaInstruction(
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Q?' },
      ],
      schema,
    );
    expect(withSystem).toHaveLength(2);
    expect(withSystem[0]!.content).toMatch(/^Be brief\.\n\nAnswer with one JSON value only/);
    expect(withSystem[0]!.content).toContain(JSON.stringify(schema));
    const bare = withSchemaInstruction([{ role: 'user', content: 'Q?' }], schema);
    expect(bare.map((m) => m.role)).toEqual(['system', 'user']);
  });
});
