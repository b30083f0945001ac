/**
 * Removes the NaN guard that PyTorch's exporter puts after each attention softmax:
 * `Where(IsNaN(p), 0, p)` with `p = Softmax(...)`. The guard is there for a query row whose keys are all
 * masked with -inf (softmax of all -inf is NaN). BERT-family exports mask with the float minimum instead,
 * and every text keeps its [CLS] unmasked, so `p` never holds a NaN and the guard returns `p` unchanged,
 * bit for bit; onnxruntime still runs it over the full [batch, heads, seq, seq] tensor, ~10% of a
 * MiniLM run at 256 tokens (measured with onnxruntime's profiler). The guarded value is passed through an
 * Identity instead, which onnxruntime's optimizer removes. A graph without the pattern comes back as is.
 *
 * Works on the protobuf wire format directly (field numbers from onnx.proto) and rewrites only the nodes
 * it changes, so weights and everything else keep their exact bytes.
 */

interface Field {
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

function fields(buf: Uint8Array): Field[] {
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

const varint = (n: number): number[] => {
  const out: number[] = [];
  for (; n > 127; n = Math.floor(n / 128)) out.push((n % 128) | 128);
  out.push(n);
  return out;
};
const header = (no: number, len: number): Uint8Array => Uint8Array.from([...varint((no << 3) | 2), ...varint(len)]);
const text = new TextDecoder();
const utf8 = new TextEncoder();

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

interface NodeInfo {
  field: Field;
  inputs: string[];
  outputs: string[];
  name: string;
  opType: string;
  domain: string;
}

// NodeProto: input = 1, output = 2, name = 3, op_type = 4, domain = 7.
function nodeInfo(field: Field): NodeInfo {
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

function identityNode(name: string, input: string, output: string): Uint8Array {
  const str = (no: number, s: string): Uint8Array => {
    const b = utf8.encode(s);
    return concat([header(no, b.length), b]);
  };
  const body = concat([str(1, input), str(2, output), str(3, name), str(4, 'Identity')]);
  return concat([header(1, body.length), body]);
}

const isStandard = (n: NodeInfo): boolean => n.domain === '' || n.domain === 'ai.onnx';

/** The model with its softmax NaN guards replaced by Identity, and how many it replaced. */
export function dropSoftmaxNanGuards(model: Uint8Array): { model: Uint8Array; dropped: number } {
  const top = fields(model);
  const graphField = top.find((f) => f.no === 7 && f.wire === 2); // ModelProto.graph
  if (!graphField?.body) return { model, dropped: 0 };
  const graphFields = fields(graphField.body);
  const nodes = graphFields.filter((f) => f.no === 1 && f.wire === 2).map(nodeInfo); // GraphProto.node
  const producer = new Map<string, NodeInfo>();
  const uses = new Map<string, number>();
  for (const n of nodes) {
    n.outputs.forEach((o) => producer.set(o, n));
    n.inputs.forEach((i) => uses.set(i, (uses.get(i) ?? 0) + 1));
  }
  // Graph outputs (field 12, ValueInfoProto.name = 1) count as uses: such a value must stay.
  for (const f of graphFields.filter((g) => g.no === 12 && g.body)) {
    const name = fields(f.body!).find((g) => g.no === 1)?.body;
    if (name) uses.set(text.decode(name), (uses.get(text.decode(name)) ?? 0) + 1);
  }
  const replace = new Map<Field, Uint8Array | null>();
  for (const where of nodes) {
    if (where.opType !== 'Where' || !isStandard(where) || where.inputs.length !== 3 || where.outputs.length !== 1) continue;
    const [cond, , value] = where.inputs as [string, string, string];
    const isNan = producer.get(cond);
    if (!isNan || isNan.opType !== 'IsNaN' || !isStandard(isNan) || isNan.inputs[0] !== value || uses.get(cond) !== 1) continue;
    const softmax = producer.get(value);
    if (!softmax || softmax.opType !== 'Softmax' || !isStandard(softmax)) continue;
    replace.set(isNan.field, null);
    replace.set(where.field, identityNode(where.name, value, where.outputs[0]!));
  }
  if (replace.size === 0) return { model, dropped: 0 };
  const graphParts = graphFields.map((f) => (replace.has(f) ? (replace.get(f) ?? new Uint8Array(0)) : graphField.body!.subarray(f.start, f.end)));
  const graph = concat(graphParts);
  const modelParts = top.map((f) => (f === graphField ? concat([header(7, graph.length), graph]) : model.subarray(f.start, f.end)));
  return { model: concat(modelParts), dropped: replace.size / 2 };
}

/**
 * Whether any initializer keeps its data in a separate file (TensorProto.external_data = 13,
 * data_location = 14): such a model only loads from its path, where onnxruntime finds those files.
 */
export function hasExternalData(model: Uint8Array): boolean {
  const graph = fields(model).find((f) => f.no === 7 && f.wire === 2)?.body;
  if (!graph) return false;
  return fields(graph)
    .filter((f) => f.no === 5 && f.body) // GraphProto.initializer
    .some((f) => fields(f.body!).some((t) => t.no === 13 || (t.no === 14 && t.value === 1)));
}
