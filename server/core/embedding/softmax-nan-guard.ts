/**
 * Removes the NaN guard that PyTorch's exporter puts after each attention softmax:
 * `Where(IsNaN(p), 0, p)` with `p = Softmax(...)`. The guard is there for a query row whose keys are all
 * masked with -inf (softmax of all -inf is NaN). BERT-family exports mask with the float minimum instead,
 * and every text keeps its [CLS] unmasked, so `p` never holds a NaN and the guard returns `p` unchanged,
 * bit for bit; onnxruntime still runs it over the full [batch, heads, seq, seq] tensor, ~10% of a
 * MiniLM run at 256 tokens (measured with onnxruntime's profiler). The guarded value is passed through an
 * Identity instead, which onnxruntime's optimizer removes. A graph without the pattern comes back as is.
 *
 * Works on the protobuf wire format directly (onnx-wire.ts) and rewrites only the nodes it changes, so
 * weights and everything else keep their exact bytes.
 */

import {
  encodeNode,
  fields,
  graphOf,
  isStandard,
  nodeInfo,
  rebuild,
  useCounts,
  type Field,
  type NodeInfo,
} from './onnx-wire.js';

/** The model with its softmax NaN guards replaced by Identity, and how many it replaced. */
export function dropSoftmaxNanGuards(model: Uint8Array): { model: Uint8Array; dropped: number } {
  const g = graphOf(model);
  if (!g) return { model, dropped: 0 };
  const nodes = g.graphFields.filter((f) => f.no === 1 && f.wire === 2).map(nodeInfo); // GraphProto.node
  const producer = new Map<string, NodeInfo>();
  for (const n of nodes) n.outputs.forEach((o) => producer.set(o, n));
  // Graph outputs count as uses: such a value must stay.
  const uses = useCounts(nodes, g.graphFields);
  const replace = new Map<Field, Uint8Array | null>();
  for (const where of nodes) {
    if (where.opType !== 'Where' || !isStandard(where) || where.inputs.length !== 3 || where.outputs.length !== 1)
      continue;
    const [cond, , value] = where.inputs as [string, string, string];
    const isNan = producer.get(cond);
    if (isNan?.opType !== 'IsNaN' || !isStandard(isNan) || isNan.inputs[0] !== value || uses.get(cond) !== 1) continue;
    const softmax = producer.get(value);
    if (softmax?.opType !== 'Softmax' || !isStandard(softmax)) continue;
    replace.set(isNan.field, null);
    replace.set(
      where.field,
      encodeNode({ name: where.name, opType: 'Identity', inputs: [value], outputs: [where.outputs[0]!] }),
    );
  }
  if (replace.size === 0) return { model, dropped: 0 };
  return { model: rebuild(model, g, replace), dropped: replace.size / 2 };
}

/**
 * Whether any initializer keeps its data in a separate file (TensorProto.external_data = 13,
 * data_location = 14): such a model only loads from its path, where onnxruntime finds those files.
 */
export function hasExternalData(model: Uint8Array): boolean {
  const g = graphOf(model);
  if (!g) return false;
  return g.graphFields
    .filter((f) => f.no === 5 && f.body) // GraphProto.initializer
    .some((f) => fields(f.body!).some((t) => t.no === 13 || (t.no === 14 && t.value === 1)));
}
