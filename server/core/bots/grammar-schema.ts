import type { GbnfJsonSchema } from 'node-llama-cpp';

/**
 * The caller's JSON Schema mapped onto the subset node-llama-cpp 3.x turns into a grammar
 * (`createGrammarForJsonSchema`): types, const, enum, oneOf, properties, additionalProperties, items,
 * prefixItems, min/max lengths and counts, date/time formats and `#/$defs/…` refs. The grammar only steers
 * the local model's decoding; the whole schema is checked with Ajv afterwards, so whatever the subset cannot
 * say (pattern, minimum, maximum, multipleOf, other formats, not, if/then…) is dropped here rather than
 * guessed at. Differences from JSON Schema that matter:
 * - node-llama-cpp emits every declared property, in order, and by default no others; properties that are
 *   `required` but not declared are added (any value), so the answer can hold them.
 * - an empty schema `{}` means `null` only there, so "any value" is spelt out (ANY).
 * - `$defs` are lexically scoped there: all definitions (and `#`, as `lectern-root`) are hoisted to the root.
 */

type Node = { readonly [key: string]: unknown };

const ANY: GbnfJsonSchema = {
  oneOf: [
    { type: ['string', 'number', 'boolean', 'null'] },
    { type: 'object', additionalProperties: true },
    { type: 'array' },
  ],
};
const ROOT_DEF = 'lectern-root';
/** Above this a length or count is left to Ajv: llama.cpp expands `x{0,n}` into n nested rules. */
const MAX_REPEAT = 1000;
/** Schema nodes the mapping may produce (anyOf distribution and allOf refs can multiply them). */
const MAX_NODES = 5000;
const DATE_FORMATS = new Set(['date-time', 'date', 'time']);
const IMMUTABLE = new Set(['string', 'number', 'integer', 'boolean', 'null']);
const TYPES = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'] as const;
type TypeName = (typeof TYPES)[number];

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
const count = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_REPEAT ? v : undefined;
const isPrimitive = (v: unknown): v is string | number | boolean | null =>
  v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** A `#/$defs/x` or `#/definitions/x` pointer's definition name (JSON-pointer and URI escapes undone). */
function defNameOf(ref: string): string | undefined {
  if (ref === '#') return ROOT_DEF;
  const m = /^#\/(?:\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (!m?.[1]) return undefined;
  try {
    return decodeURIComponent(m[1]).replace(/~1/g, '/').replace(/~0/g, '~');
  } catch {
    return undefined;
  }
}

/** The schema that matches exactly `value` (const and enum of objects and arrays are not in the subset). */
function literal(value: unknown): GbnfJsonSchema {
  if (isPrimitive(value)) return { const: value };
  if (Array.isArray(value))
    return { type: 'array', prefixItems: value.map(literal), minItems: value.length, maxItems: value.length };
  if (isNode(value))
    return { type: 'object', properties: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, literal(v)])) };
  return ANY;
}

const stricter = (a: unknown, b: unknown, pick: (x: number, y: number) => number): unknown =>
  typeof a === 'number' && typeof b === 'number' ? pick(a, b) : (a ?? b);
const BOUNDS: [string, (x: number, y: number) => number][] = [
  ['minLength', Math.max],
  ['minItems', Math.max],
  ['minProperties', Math.max],
  ['maxLength', Math.min],
  ['maxItems', Math.min],
  ['maxProperties', Math.min],
];

/** `allOf` members folded into one schema: properties merged per key, required united, types intersected. */
function mergeSchemas(a: Node, b: Node): Node {
  const out: Record<string, unknown> = { ...b, ...a };
  if (isNode(a.properties) && isNode(b.properties)) {
    const props: Record<string, unknown> = { ...a.properties };
    for (const [k, v] of Object.entries(b.properties)) props[k] = k in props ? { allOf: [props[k], v] } : v;
    out.properties = props;
  }
  if (Array.isArray(a.required) || Array.isArray(b.required))
    out.required = [...new Set([...((a.required as unknown[]) ?? []), ...((b.required as unknown[]) ?? [])])];
  if (a.type !== undefined && b.type !== undefined) {
    const ta = [a.type].flat();
    const both = [b.type].flat().filter((t) => ta.includes(t) || (t === 'integer' && ta.includes('number')));
    out.type = both.length > 0 ? both : ta;
  }
  if (isNode(a.items) && isNode(b.items)) out.items = { allOf: [a.items, b.items] };
  // Only bounds either side has: a key present with `undefined` would still count as present.
  for (const [k, pick] of BOUNDS) if (k in a || k in b) out[k] = stricter(a[k], b[k], pick);
  return out;
}

const STRUCTURE = [
  'type',
  'properties',
  'additionalProperties',
  'required',
  'items',
  'prefixItems',
  'minLength',
  'maxLength',
  'format',
  'minItems',
  'maxItems',
];

class Mapper {
  private nodes = 0;
  /** Definitions the output refers to, by name; filled as refs are met. */
  readonly used = new Map<string, Node | boolean>();

  constructor(private readonly defs: ReadonlyMap<string, unknown>) {}

  map(schema: unknown, depth = 0): GbnfJsonSchema {
    if (++this.nodes > MAX_NODES || depth > 64 || !isNode(schema)) return ANY;
    if (typeof schema.$ref === 'string') return this.ref(schema.$ref);
    if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
      const { allOf, ...rest } = schema;
      const merged = allOf.reduce<Node>((acc, m) => mergeSchemas(acc, this.inline(m)), rest);
      return this.map(merged, depth + 1);
    }
    if (schema.const !== undefined) return literal(schema.const);
    if (Array.isArray(schema.enum) && schema.enum.length > 0) {
      return schema.enum.every(isPrimitive) ? { enum: schema.enum } : { oneOf: schema.enum.map(literal) };
    }
    const alternatives = Array.isArray(schema.anyOf)
      ? schema.anyOf
      : Array.isArray(schema.oneOf)
        ? schema.oneOf
        : undefined;
    if (alternatives && alternatives.length > 0) {
      const { anyOf: _a, oneOf: _o, ...parent } = schema;
      // {type: object, properties…, anyOf: [{required: [a]}, {required: [b]}]}: each branch keeps the parent's shape.
      const shaped = STRUCTURE.some((k) => k in parent);
      return {
        oneOf: alternatives.map((alt) =>
          this.map(shaped && isNode(alt) ? mergeSchemas(parent, this.inline(alt)) : alt, depth + 1),
        ),
      };
    }
    return this.typed(schema, depth);
  }

  /** A `$ref` member of allOf/anyOf, replaced by its definition so it can be merged. */
  private inline(member: unknown): Node {
    if (!isNode(member)) return {};
    const name = typeof member.$ref === 'string' ? defNameOf(member.$ref) : undefined;
    const def = name === undefined ? undefined : this.defs.get(name);
    if (name === undefined || !isNode(def)) return member;
    const { $ref: _r, ...rest } = member;
    return { ...def, ...rest };
  }

  private ref(ref: string): GbnfJsonSchema {
    const name = defNameOf(ref);
    const def = name === undefined ? undefined : this.defs.get(name);
    if (name === undefined || def === undefined) return ANY;
    if (!this.used.has(name)) this.used.set(name, isNode(def) || typeof def === 'boolean' ? def : {});
    return { $ref: `#/$defs/${name}` } as GbnfJsonSchema;
  }

  private typed(schema: Node, depth: number): GbnfJsonSchema {
    const declared = [schema.type].flat().filter((t): t is TypeName => TYPES.includes(t as TypeName));
    const types: TypeName[] = declared.length > 0 ? declared : inferType(schema);
    if (schema.nullable === true && types.length > 0 && !types.includes('null')) types.push('null');
    if (types.length === 0) return ANY;
    if (types.every((t) => IMMUTABLE.has(t) && (t !== 'string' || !hasStringShape(schema)))) {
      return types.length === 1 ? { type: types[0] as 'string' } : { type: types as ('string' | 'null')[] };
    }
    const each = types.map((t): GbnfJsonSchema => {
      if (t === 'object') return this.object(schema, depth);
      if (t === 'array') return this.array(schema, depth);
      if (t === 'string') return stringOf(schema);
      return { type: t };
    });
    return each.length === 1 ? (each[0] as GbnfJsonSchema) : { oneOf: each };
  }

  private object(schema: Node, depth: number): GbnfJsonSchema {
    const props: Record<string, GbnfJsonSchema> = {};
    const declared = isNode(schema.properties) ? schema.properties : {};
    for (const [k, v] of Object.entries(declared)) if (v !== false) props[k] = this.map(v, depth + 1);
    for (const k of Array.isArray(schema.required) ? schema.required : [])
      if (typeof k === 'string' && !(k in props)) props[k] = ANY;
    const extra = schema.additionalProperties;
    const open = isNode(extra)
      ? this.map(extra, depth + 1)
      : Object.keys(props).length === 0 && extra !== false
        ? true
        : undefined;
    if (open === undefined) return { type: 'object', properties: props };
    return {
      type: 'object',
      properties: props,
      additionalProperties: open,
      ...(count(schema.minProperties) !== undefined ? { minProperties: count(schema.minProperties) } : {}),
      ...(count(schema.maxProperties) !== undefined ? { maxProperties: count(schema.maxProperties) } : {}),
    };
  }

  private array(schema: Node, depth: number): GbnfJsonSchema {
    // Draft-07 tuples are `items: [..]` with `additionalItems`; 2020-12's are `prefixItems` with `items`.
    const tuple = Array.isArray(schema.prefixItems)
      ? schema.prefixItems
      : Array.isArray(schema.items)
        ? schema.items
        : undefined;
    const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
    let maxItems = count(schema.maxItems);
    if (tuple && rest === false) maxItems = Math.min(maxItems ?? tuple.length, tuple.length);
    const minItems = count(schema.minItems);
    return {
      type: 'array',
      ...(tuple ? { prefixItems: tuple.map((s) => this.map(s, depth + 1)) } : {}),
      ...(isNode(rest) ? { items: this.map(rest, depth + 1) } : {}),
      ...(minItems !== undefined ? { minItems } : {}),
      ...(maxItems !== undefined ? { maxItems } : {}),
    };
  }
}

function inferType(schema: Node): TypeName[] {
  if (['properties', 'additionalProperties', 'required', 'minProperties', 'maxProperties'].some((k) => k in schema))
    return ['object'];
  if (['items', 'prefixItems', 'minItems', 'maxItems'].some((k) => k in schema)) return ['array'];
  if (['minLength', 'maxLength'].some((k) => k in schema)) return ['string'];
  return [];
}

const hasStringShape = (s: Node): boolean =>
  count(s.minLength) !== undefined ||
  count(s.maxLength) !== undefined ||
  (typeof s.format === 'string' && DATE_FORMATS.has(s.format));

function stringOf(schema: Node): GbnfJsonSchema {
  if (typeof schema.format === 'string' && DATE_FORMATS.has(schema.format))
    return { type: 'string', format: schema.format as 'date' };
  const minLength = count(schema.minLength);
  const maxLength = count(schema.maxLength);
  return {
    type: 'string',
    ...(minLength !== undefined ? { minLength } : {}),
    ...(maxLength !== undefined ? { maxLength } : {}),
  };
}

/** The caller's schema as node-llama-cpp's grammar subset (see the top of this file). */
export function grammarSchemaOf(schema: unknown): GbnfJsonSchema {
  const defs = new Map<string, unknown>();
  if (isNode(schema)) {
    for (const key of ['definitions', '$defs']) {
      const d = schema[key];
      if (isNode(d)) for (const [name, def] of Object.entries(d)) defs.set(name, def);
    }
    defs.set(ROOT_DEF, schema);
  }
  const mapper = new Mapper(defs);
  const root = mapper.map(schema);
  // Definitions are mapped after the root; a Map's iteration also visits the refs met on the way.
  const mapped: Record<string, GbnfJsonSchema> = {};
  for (const [name, def] of mapper.used) mapped[name] = mapper.map(def);
  if (Object.keys(mapped).length === 0) return root;
  // Only objects, arrays, oneOf and refs carry $defs there: anything else is wrapped in a one-branch oneOf.
  const r: Node = root;
  const carries = 'oneOf' in r || '$ref' in r || r.type === 'object' || r.type === 'array';
  return (carries ? { ...root, $defs: mapped } : { oneOf: [root], $defs: mapped }) as GbnfJsonSchema;
}
