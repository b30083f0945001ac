/**
 * Runs the weight matrix multiplies of an int8-weight export in int8. Some exports (the PyPI MiniLM among
 * them) keep each weight as int8 and dequantize it in the graph, `MatMul(x, Mul(Cast(W_int8), scale))` with
 * one scale per output column; onnxruntime folds the Cast and Mul into an fp32 weight at load, so every
 * such matmul runs in fp32 (81% of a MiniLM run). This rewrite hands the same int8 values and scales to
 * onnxruntime's com.microsoft MatMulNBits (bits 8, accuracy_level 4: int8 dot products, VNNI on x64), the
 * bias Add after the matmul folded in. The activations are quantized to int8 at run time per row and per
 * block of 64 along K, so a large value costs precision in its block only, and a text's vector does not
 * depend on the other texts of its batch.
 *
 * Measured on MiniLM (2026-11-24, a scratch script, one onnxruntime thread, cosine to the fp32 compute's vectors
 * over 300 SciFact queries / 64 prose chunks of 256 tokens): min 0.9994 / 0.9996 (mean 0.9996 / 0.9998), 62 CPU
 * ms per chunk against 78 for fp32 (bench:embed's pool: 61-62 against 74-79). Blocks of 128: as fast, min 0.9989 on queries, and SciFact hybrid
 * nDCG@10 0.7398 against 0.7412 with fp32; of 32: 66 ms, min 0.9996. The attention's value projection
 * loses the most (its output goes straight to the residual; q and k errors are damped by the softmax).
 * Rejected: DynamicQuantizeMatMul (activations quantized per tensor, over the whole batch): ~40% less CPU
 * but min 0.993 on queries, and a text's vector then depends on its batch.
 *
 * The vectors are not bit-identical to the fp32 compute's (see int8-matmul.test.ts and bench:embed's
 * agreement column). Only the exact pattern is touched (int8 initializer, fp32 per-column or scalar scale
 * initializer, 2-D weight); a graph without it (fp32 exports, or exports already quantized with
 * MatMulInteger) comes back as is.
 */
import {
  concat,
  decode,
  encodeNode,
  fields,
  graphOf,
  intField,
  isStandard,
  message,
  nodeInfo,
  packedVarints,
  rebuild,
  stringField,
  useCounts,
  type Field,
  type NodeInfo,
} from './onnx-wire.js';

/** TensorProto.DataType values used here. */
const FLOAT = 1;
const UINT8 = 2;
const INT8 = 3;

interface Tensor {
  field: Field;
  name: string;
  dims: number[];
  dataType: number;
  /** raw_data (TensorProto field 9); undefined when the values are stored in a typed field. */
  raw?: Uint8Array;
  /** float_data (field 4, packed). */
  floats?: Uint8Array;
}

// TensorProto: dims = 1, data_type = 2, float_data = 4, name = 8, raw_data = 9.
function tensorInfo(field: Field): Tensor {
  const t: Tensor = { field, name: '', dims: [], dataType: 0 };
  for (const f of fields(field.body!)) {
    if (f.no === 1) t.dims.push(...(f.body ? packedVarints(f.body) : [f.value!]));
    else if (f.no === 2) t.dataType = f.value!;
    else if (f.no === 4 && f.body) t.floats = f.body;
    else if (f.no === 8 && f.body) t.name = decode(f.body);
    else if (f.no === 9 && f.body) t.raw = f.body;
  }
  return t;
}

function floatValues(t: Tensor): Float32Array | undefined {
  if (t.dataType !== FLOAT) return undefined;
  const bytes = t.raw ?? t.floats;
  if (!bytes || bytes.length % 4 !== 0) return undefined;
  // A copy: the bytes sit at any offset of the model's buffer, a Float32Array view needs 4-byte alignment.
  return new Float32Array(bytes.slice().buffer);
}

function encodeTensor(name: string, dims: number[], dataType: number, raw: Uint8Array): Uint8Array {
  return message(
    5,
    concat([...dims.map((d) => intField(1, d)), intField(2, dataType), stringField(8, name), message(9, raw)]),
  );
}

/** Activations quantized per block of this many along K by MatMulNBits (onnxruntime's CPU kernel takes 16–256). */
const BLOCK = 64;

export interface Int8MatMulResult {
  model: Uint8Array;
  /** How many matmuls now run as MatMulNBits. */
  rewritten: number;
}

/** The model with its dequantize-then-MatMul weights multiplied in int8 (see the file's comment). */
export function int8MatMuls(model: Uint8Array): Int8MatMulResult {
  const unchanged = { model, rewritten: 0 };
  const g = graphOf(model);
  if (!g) return unchanged;
  const nodes = g.graphFields.filter((f) => f.no === 1 && f.wire === 2).map(nodeInfo); // GraphProto.node
  const inits = new Map<string, Tensor>();
  for (const f of g.graphFields.filter((x) => x.no === 5 && x.body)) {
    const t = tensorInfo(f); // GraphProto.initializer
    inits.set(t.name, t);
  }
  const producer = new Map<string, NodeInfo>();
  const consumers = new Map<string, NodeInfo[]>();
  for (const n of nodes) {
    n.outputs.forEach((o) => producer.set(o, n));
    for (const i of n.inputs) {
      const list = consumers.get(i);
      if (list) list.push(n);
      else consumers.set(i, [n]);
    }
  }
  const uses = useCounts(nodes, g.graphFields);
  // An initializer also listed as a graph input (GraphProto.input = 11, older IRs) is kept: removed, it would
  // become an input the caller must feed.
  for (const f of g.graphFields.filter((x) => x.no === 11 && x.body)) {
    const name = fields(f.body!).find((x) => x.no === 1)?.body;
    if (name) uses.set(decode(name), Infinity);
  }
  const only = (value: string): boolean => uses.get(value) === 1;
  const replace = new Map<Field, Uint8Array | null>();
  const added: Uint8Array[] = [];
  const taken = new Set([...inits.keys(), ...nodes.flatMap((n) => n.outputs)]);
  const fresh = (base: string): string => {
    let name = base;
    for (let i = 1; taken.has(name); i++) name = `${base}_${i}`;
    taken.add(name);
    return name;
  };
  let rewritten = 0;
  for (const matmul of nodes) {
    if (matmul.opType !== 'MatMul' || !isStandard(matmul) || matmul.inputs.length !== 2 || matmul.outputs.length !== 1)
      continue;
    const [x, w] = matmul.inputs as [string, string];
    const mul = producer.get(w);
    if (mul?.opType !== 'Mul' || !isStandard(mul) || !only(w)) continue;
    // Mul(Cast(W), scale) or Mul(scale, Cast(W)); with a float scale, a valid graph casts W to float.
    const castAt = mul.inputs.findIndex((i) => producer.get(i)?.opType === 'Cast');
    if (castAt < 0 || mul.inputs.length !== 2) continue;
    const cast = producer.get(mul.inputs[castAt]!)!;
    const weight = inits.get(cast.inputs[0] ?? '');
    const scaleInit = inits.get(mul.inputs[1 - castAt]!);
    if (!isStandard(cast) || !only(mul.inputs[castAt]!) || !weight || !scaleInit) continue;
    if (weight.dataType !== INT8 || !weight.raw || weight.dims.length !== 2) continue;
    const [k, n] = weight.dims as [number, number];
    if (weight.raw.length !== k * n) continue;
    const scales = floatValues(scaleInit);
    // Per output column ([N], [1, N]) or one for all.
    if (
      !scales ||
      !(scales.length === n || scales.length === 1) ||
      scaleInit.dims.some((d, i, all) => d !== 1 && !(i === all.length - 1 && d === n))
    )
      continue;
    const columnScales = scales.length === n ? scales : new Float32Array(n).fill(scales[0]!);

    // The bias Add right after, when it adds a [N] initializer and nothing else reads the product.
    let output = matmul.outputs[0]!;
    let bias = '';
    const after = consumers.get(output) ?? [];
    const add = after[0];
    if (
      after.length === 1 &&
      only(output) &&
      add &&
      add.opType === 'Add' &&
      isStandard(add) &&
      add.inputs.length === 2
    ) {
      const other = inits.get(add.inputs.find((i) => i !== output) ?? '');
      if (other && other.dataType === FLOAT && other.dims.length === 1 && other.dims[0] === n) {
        bias = other.name;
        output = add.outputs[0]!;
        replace.set(add.field, null);
      }
    }
    replace.set(mul.field, null);
    replace.set(cast.field, null);
    // MatMulNBits B: uint8 [N, K/BLOCK, BLOCK], W transposed, zero point 128 (its default for 8 bits);
    // scales [N × blocks], each column's scale for all its blocks. K past the last full block: weights 0 (128).
    const blocks = Math.ceil(k / BLOCK);
    const b = new Uint8Array(n * blocks * BLOCK).fill(128);
    const wq = new Int8Array(weight.raw.buffer, weight.raw.byteOffset, weight.raw.length);
    for (let row = 0; row < k; row++) {
      for (let col = 0; col < n; col++) b[col * blocks * BLOCK + row] = wq[row * n + col]! + 128;
    }
    const s = new Float32Array(n * blocks);
    for (let col = 0; col < n; col++) s.fill(columnScales[col]!, col * blocks, (col + 1) * blocks);
    const bName = fresh(`${weight.name}_nbits`);
    const sName = fresh(`${weight.name}_nbits_scales`);
    added.push(
      encodeTensor(bName, [n, blocks, BLOCK], UINT8, b),
      encodeTensor(sName, [n * blocks], FLOAT, new Uint8Array(s.buffer)),
    );
    if (only(weight.name)) replace.set(weight.field, null);
    if (only(scaleInit.name)) replace.set(scaleInit.field, null);
    replace.set(
      matmul.field,
      encodeNode({
        name: matmul.name,
        opType: 'MatMulNBits',
        domain: 'com.microsoft',
        // A, B, scales, zero_points, g_idx, bias.
        inputs: bias ? [x, bName, sName, '', '', bias] : [x, bName, sName],
        outputs: [output],
        ints: { K: k, N: n, bits: 8, block_size: BLOCK, accuracy_level: 4 },
      }),
    );
    rewritten++;
  }
  if (rewritten === 0) return unchanged;
  // ModelProto.opset_import = 8: OperatorSetIdProto { domain = 1, version = 2 }, for the com.microsoft ops.
  const imports = g.top.filter((f) => f.no === 8 && f.body).map((f) => fields(f.body!).find((x) => x.no === 1)?.body);
  const hasMs = imports.some((d) => d && decode(d) === 'com.microsoft');
  const msImport = hasMs ? [] : [message(8, concat([stringField(1, 'com.microsoft'), intField(2, 1)]))];
  return { model: rebuild(model, g, replace, added, msImport), rewritten };
}
