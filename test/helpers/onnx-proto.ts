/**
 * Protocol-buffer encoding of the few ONNX messages a generated test graph needs (field numbers from
 * onnx.proto): tests that need fp32, CLS-pooled or specially shaped models build them, since no such weights
 * can be fetched on these machines.
 */
const varint = (n: number): number[] => {
  const out: number[] = [];
  for (; n > 127; n = Math.floor(n / 128)) out.push((n % 128) | 128);
  return [...out, n];
};
export const int = (field: number, n: number): number[] => [...varint(field << 3), ...varint(n)];
export const bytes = (field: number, b: ArrayLike<number>): number[] => [
  ...varint((field << 3) | 2),
  ...varint(b.length),
  ...Array.from(b),
];
export const str = (field: number, s: string): number[] => bytes(field, new TextEncoder().encode(s));
const dims = (d: (number | string)[]) =>
  bytes(
    2,
    d.flatMap((x) => bytes(1, typeof x === 'number' ? int(1, x) : str(2, x))),
  );
/** ValueInfoProto { name, type: TypeProto { tensor_type { elem_type, shape } } }; elem_type 1 float, 7 int64. */
const value = (name: string, elemType: number, shape: (number | string)[]) => [
  ...str(1, name),
  ...bytes(2, bytes(1, [...int(1, elemType), ...dims(shape)])),
];

/** A NodeProto as GraphProto field 1: `op` from `inputs` to `output`, with integer attributes (AttributeProto name, i, type INT). */
export const node = (op: string, inputs: string[], output: string, ints: Record<string, number> = {}): number[] =>
  bytes(1, [
    ...inputs.flatMap((i) => str(1, i)),
    ...str(2, output),
    ...str(3, `${op}_${output}`),
    ...str(4, op),
    ...Object.entries(ints).flatMap(([name, i]) => bytes(5, [...str(1, name), ...int(3, i), ...int(20, 2)])),
  ]);

/** A TensorProto with its values as raw_data; data_type 1 float, 3 int8. */
export const rawTensor = (name: string, dims: number[], dataType: number, raw: ArrayBufferView): number[] => [
  ...dims.flatMap((d) => int(1, d)),
  ...int(2, dataType),
  ...str(8, name),
  ...bytes(9, new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength)),
];

/** A [vocab, dim] fp32 table as TensorProto `table`; with `external`, its data lives in that file beside the model. */
export function tableTensor(table: Float32Array, vocab: number, dim: number, external?: string): number[] {
  if (!external) return rawTensor('table', [vocab, dim], 1, table);
  return [
    ...int(1, vocab),
    ...int(1, dim),
    ...int(2, 1),
    ...str(8, 'table'),
    ...bytes(13, [...str(1, 'location'), ...str(2, external)]),
    ...int(14, 1),
  ];
}

/**
 * A ModelProto (IR 8, opset 13) whose graph takes a text encoder's inputs (input_ids, attention_mask) and
 * gives `last_hidden_state` [batch, seq, dim] from `nodes` over `initializers` (TensorProto bytes).
 */
export function encoderModel(name: string, nodes: number[], initializers: number[][], dim: number): Uint8Array {
  const graph = [
    ...nodes,
    ...str(2, name),
    ...initializers.flatMap((t) => bytes(5, t)),
    ...bytes(11, value('input_ids', 7, ['batch', 'seq'])),
    ...bytes(11, value('attention_mask', 7, ['batch', 'seq'])),
    ...bytes(12, value('last_hidden_state', 1, ['batch', 'seq', dim])),
  ];
  return Uint8Array.from([...int(1, 8), ...bytes(7, graph), ...bytes(8, [...str(1, ''), ...int(2, 13)])]);
}
