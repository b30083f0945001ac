import { copyFileSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ensureTestModels } from './test-models.js';

/**
 * all-MiniLM-L6-v2 laid out as sentence-transformers saves a model (and as its ONNX exports are published):
 * the real int8 graph and tokenizer of the test cache, with the module files the published
 * sentence-transformers/all-MiniLM-L6-v2 has (Transformer, mean Pooling, Normalize; max_seq_length 256).
 * No weights of another sentence-embedding model can be fetched here, so imports are proven with this one
 * under names the catalog does not know. `prompts` writes config_sentence_transformers.json with them;
 * `tokenizer` is a tokenizer.json to put in place of MiniLM's.
 */
export async function writeMiniLmFolder(
  dir: string,
  opts: {
    onnxAt?: string;
    pooling?: 'mean' | 'cls' | 'max';
    prompts?: Record<string, string>;
    tokenizer?: string;
  } = {},
): Promise<string> {
  const { minilm } = await ensureTestModels();
  const onnxAt = opts.onnxAt ?? 'onnx/model_quantized.onnx';
  mkdirSync(join(dir, onnxAt, '..'), { recursive: true });
  mkdirSync(join(dir, '1_Pooling'), { recursive: true });
  copyFileSync(minilm.onnx, join(dir, onnxAt));
  for (const f of ['tokenizer.json', 'config.json', 'tokenizer_config.json', 'special_tokens_map.json'])
    copyFileSync(join(minilm.dir, f), join(dir, f));
  if (opts.tokenizer) copyFileSync(opts.tokenizer, join(dir, 'tokenizer.json'));
  const modules = [
    { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
    { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
    { idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' },
  ];
  writeFileSync(join(dir, 'modules.json'), JSON.stringify(modules, null, 2));
  const pooling = opts.pooling ?? 'mean';
  writeFileSync(
    join(dir, '1_Pooling', 'config.json'),
    JSON.stringify({
      word_embedding_dimension: 384,
      pooling_mode_cls_token: pooling === 'cls',
      pooling_mode_mean_tokens: pooling === 'mean',
      pooling_mode_max_tokens: pooling === 'max',
      pooling_mode_mean_sqrt_len_tokens: false,
    }),
  );
  writeFileSync(join(dir, 'sentence_bert_config.json'), JSON.stringify({ max_seq_length: 256, do_lower_case: false }));
  if (opts.prompts)
    writeFileSync(
      join(dir, 'config_sentence_transformers.json'),
      JSON.stringify({ prompts: opts.prompts, default_prompt_name: null }),
    );
  return dir;
}

/** Every file under `dir`, as `/`-separated paths inside it. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p).split('\\').join('/'));
    }
  };
  walk(dir);
  return out.sort();
}
