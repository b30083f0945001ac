/**
 * Just enough of the protobuf wire format to rewrite an ONNX model's graph at load (field numbers from
 * onnx.proto): fields are read as byte ranges of the original buffer, so whatever a rewrite does not touch
 * (weights above all) keeps its exact bytes. Used by softmax-nan-guard.ts and int8-matmul.ts.
 */

export interface Field {
  no: number;
  wire: number;
  /** The whole field, tag included. */
  start: number;
  end: number;
  /** For length-delimited fields, the payload. */
  body?: Uint8Array;
  /** For varint fields, the value. */
  value?: number;
}

function readVarint(buf: Uint8Array, at: number): [number, number] {
  let n = 0;
  let mul = 1;
  for (;;) {
    const b = buf[at++];
    if (b === undefined) throw new Error('truncated varint');
    n += (b & 0x7f) * mul;
    if (b < 0x80) return [n, at];
    mul *= 128;
  }
}

export function fields(buf: Uint8Array): Field[] {
  const out: Field[] = [];
  for (let at = 0; at < buf.length; ) {
    const start = at;
    const [tag, afterTag] = readVarint(buf, at);
    const no = Math.floor(tag / 8);
    const wire = tag & 7;
    at = afterTag;
    let body: Uint8Array | undefined;
    let value: number | undefined;
    if (wire === 0) [value, at] = readVarint(buf, at);
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const [len, afterLen] = readVarint(buf, at);
      body = buf.subarray(afterLen, afterLen + len);
      at = afterLen + len;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
    if (at > buf.length) throw new Error('truncated protobuf field');
    out.push({ no, wire, start, end: at, body, value });
  }
  return out;
}

/** The varints of a packed repeated field (e.g. TensorProto.dims written packed). */
export function packedVarints(body: Uint8Array): number[] {
  const out: number[] = [];
  for (let at = 0; at < body.length; ) {
    const [n, next] = readVarint(body, at);
    out.push(n);
    at = next;
  }
  return out;
}

const varint = (n: number): number[] => {
  const out: number[] = [];
  for (; n > 127; n = Math.floor(n / 128)) out.push((n % 128) | 128);
  out.push(n);
  return out;
};
export const header = (no: number, len: number): Uint8Array =>
  Uint8Array.from([...varint((no << 3) | 2), ...varint(len)]);
const text = new TextDecoder();
const utf8 = new TextEncoder();
export const decode = (b: Uint8Array): string => text.decode(b);

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A length-delimited field: `no` with `body`. */
export const message = (no: number, body: Uint8Array): Uint8Array => concat([header(no, body.length), body]);
export const stringField = (no: number, s: string): Uint8Array => message(no, utf8.encode(s));
export const intField = (no: number, n: number): Uint8Array => Uint8Array.from([...varint(no << 3), ...varint(n)]);

export interface NodeInfo {
  field: Field;
  inputs: string[];
  outputs: string[];
  name: string;
  opType: string;
  domain: string;
}

// NodeProto: input = 1, output = 2, name = 3, op_type = 4, domain = 7.
export function nodeInfo(field: Field): NodeInfo {
  const node: NodeInfo = { field, inputs: [], outputs: [], name: '', opType: '', domain: '' };
  for (const f of fields(field.body!)) {
    if (!f.body) continue;
    const s = text.decode(f.body);
    if (f.no === 1) node.inputs.push(s);
    else if (f.no === 2) node.outputs.push(s);
    else if (f.no === 3) node.name = s;
    else if (f.no === 4) node.opType = s;
    else if (f.no === 7) node.domain = s;
  }
  return node;
}

/** A NodeProto as GraphProto field 1, with integer attributes (AttributeProto name = 1, i = 3, type = 20, INT = 2). */
export function encodeNode(n: {
  name: string;
  opType: string;
  inputs: string[];
  outputs: string[];
  domain?: string;
  ints?: Record<string, number>;
}): Uint8Array {
  const attrs = Object.entries(n.ints ?? {}).map(([name, i]) =>
    message(5, concat([stringField(1, name), intField(3, i), intField(20, 2)])),
  );
  const body = concat([
    ...n.inputs.map((i) => stringField(1, i)),
    ...n.outputs.map((o) => stringField(2, o)),
    stringField(3, n.name),
    stringField(4, n.opType),
    ...(n.domain ? [stringField(7, n.domain)] : []),
    ...attrs,
  ]);
  return message(1, body);
}

export const isStandard = (n: NodeInfo): boolean => n.domain === '' || n.domain === 'ai.onnx';

/** The graph (ModelProto.graph = 7) and its fields, or undefined for a model without one. */
export function graphOf(model: Uint8Array): { top: Field[]; graphField: Field; graphFields: Field[] } | undefined {
  const top = fields(model);
  const graphField = top.find((f) => f.no === 7 && f.wire === 2);
  if (!graphField?.body) return undefined;
  return { top, graphField, graphFields: fields(graphField.body) };
}

/**
 * The model with some of its graph's fields replaced (null: removed), `appendGraph` added at the graph's
 * end and `appendModel` at the model's; every other byte as it was.
 */
export function rebuild(
  model: Uint8Array,
  g: { top: Field[]; graphField: Field; graphFields: Field[] },
  replace: Map<Field, Uint8Array | null>,
  appendGraph: Uint8Array[] = [],
  appendModel: Uint8Array[] = [],
): Uint8Array {
  const graphBody = g.graphField.body!;
  const graph = concat([
    ...g.graphFields.map((f) =>
      replace.has(f) ? (replace.get(f) ?? new Uint8Array(0)) : graphBody.subarray(f.start, f.end),
    ),
    ...appendGraph,
  ]);
  return concat([
    ...g.top.map((f) => (f === g.graphField ? message(7, graph) : model.subarray(f.start, f.end))),
    ...appendModel,
  ]);
}

/** Names of values a graph's nodes read, with how many times, graph outputs (GraphProto.output = 12) counted. */
export function useCounts(nodes: NodeInfo[], graphFields: Field[]): Map<string, number> {
  const uses = new Map<string, number>();
  const use = (name: string): void => void uses.set(name, (uses.get(name) ?? 0) + 1);
  for (const n of nodes) n.inputs.forEach(use);
  for (const f of graphFields.filter((g) => g.no === 12 && g.body)) {
    const name = fields(f.body!).find((g) => g.no === 1)?.body; // ValueInfoProto.name
    if (name) use(text.decode(name));
  }
  return uses;
}
