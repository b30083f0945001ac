/**
 * Two commits side by side in one run: this working tree and an earlier commit (a git worktree made for it,
 * sharing this tree's node_modules, so only the project's own code differs) take turns running the same
 * benchmarks, round after round, the order flipped each round so that neither always runs on a warmer or
 * quieter machine. Each bench writes its --json; the figures that say "as fast as before" are read from it and
 * printed beside each other as medians over the rounds, with the change in percent and a verdict against
 * --tolerance (default 5 %).
 *
 * - ingest: every fixture PDF and a generated PDF of --pages pages, upload to ready_for_review (the sum of the
 *   files' median wall times);
 * - chat: the server's default chat configuration, time to first token (median of the warm answers) and decode
 *   tokens/s;
 * - retrieval: SciFact nDCG@10 and p50 per query for hybrid, keyword and vector search with the default MiniLM;
 *   each commit keeps its own data folder under ~/.cache/lectern-bench/compare, embedded on the first run, or
 *   anew on every run with --retrieval-fresh, which adds the time the indexer takes over the corpus.
 *
 * Usage: npm run bench:compare -- --base REV [--benches ingest,chat,retrieval] [--rounds 2] [--pages 100]
 *        [--retrieval-fresh] [--tolerance 5] [--json FILE]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { num, table } from './lib/format.js';
import { median } from './lib/stats.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    base: { type: 'string' },
    benches: { type: 'string', default: 'ingest,chat,retrieval' },
    rounds: { type: 'string', default: '2' },
    pages: { type: 'string', default: '100' },
    tolerance: { type: 'string', default: '5' },
    'retrieval-fresh': { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});
if (!args.base) throw new Error('name the earlier commit: --base REV');
const log = (s = ''): void => void process.stdout.write(`${s}\n`);
const git = (...a: string[]): string => execFileSync('git', a, { cwd: root, encoding: 'utf8' }).trim();

/**
 * A figure read from a bench's JSON; `higher` when more is better. `samples`: the single measurements behind
 * it (each answer's time to first token, say), pooled over the rounds so that the median is taken over all
 * of them rather than over each round's median.
 */
interface Figure {
  name: string;
  value: number;
  samples?: number[];
  higher?: boolean;
}
interface Bench {
  args: (tree: Tree) => string[];
  /** Read from the bench's --json and what it printed. */
  figures: (out: unknown, printed: string) => Figure[];
}
interface Tree {
  label: string;
  dir: string;
  cache: string;
}

const MODEL = 'all-minilm-l6-v2-int8-pypi';
const BENCHES: Record<string, Bench> = {
  ingest: {
    args: () => ['bench/ingest.ts', '--pages', args.pages, '--repeat', '3'],
    figures: (out) => {
      const runs = (out as { runs: { name: string; ingest?: { wallMs: number; status: string } }[] }).runs;
      const ready = runs.filter((r) => r.ingest?.status === 'ready_for_review');
      if (ready.length !== runs.length) throw new Error(`ingest: ${runs.length - ready.length} file(s) not ready`);
      return [{ name: 'ingest: all files, ms', value: ready.reduce((s, r) => s + (r.ingest?.wallMs ?? 0), 0) }];
    },
  },
  chat: {
    args: () => ['bench/chat.ts', '--only', 'default', '--questions', '5'],
    figures: (out) => {
      const results = (out as { results: Record<string, { warm: { ttftMs: number; tokensPerS: number }[] }> }).results;
      const [warm] = Object.values(results).map((r) => r.warm);
      if (!warm?.length) throw new Error('chat: no warm answers');
      const ttft = warm.map((w) => w.ttftMs);
      const decode = warm.map((w) => w.tokensPerS);
      return [
        { name: 'chat: TTFT, ms', value: median(ttft), samples: ttft },
        { name: 'chat: decode tokens/s', value: median(decode), samples: decode, higher: true },
      ];
    },
  },
  retrieval: {
    args: (tree) => [
      'bench/retrieval.ts',
      '--models',
      MODEL,
      '--data-dir',
      path.join(tree.cache, 'retrieval'),
      ...(args['retrieval-fresh'] ? ['--fresh'] : []),
    ],
    figures: (out, printed) => {
      // With --retrieval-fresh the corpus is embedded anew each run: the indexer's time is a figure too.
      const embed = /embedded (\d+) documents in ([\d.]+) s/.exec(printed);
      return [
        ...(embed ? [{ name: `retrieval: embed ${embed[1]} documents, s`, value: Number(embed[2]) }] : []),
        ...(out as { mode: string; subset: string; ndcg10: number; p50: number }[])
          .filter((r) => r.subset === 'all')
          .flatMap((r) => [
            { name: `retrieval ${r.mode}: nDCG@10`, value: r.ndcg10, higher: true },
            { name: `retrieval ${r.mode}: p50, ms`, value: r.p50 },
          ]),
      ];
    },
  },
};

/** The earlier commit checked out beside this tree, built, with this tree's dependencies. */
function baseTree(rev: string): Tree {
  const sha = git('rev-parse', '--short', rev);
  const cache = path.join(os.homedir(), '.cache', 'lectern-bench', 'compare', sha);
  const dir = path.join(cache, 'tree');
  if (!existsSync(path.join(dir, 'package.json'))) {
    rmSync(dir, { recursive: true, force: true });
    git('worktree', 'prune');
    git('worktree', 'add', '--detach', dir, sha);
    for (const link of ['node_modules', '.venv', '.tools'])
      if (existsSync(path.join(root, link))) symlinkSync(path.join(root, link), path.join(dir, link));
  }
  // Fixtures and evaluation sets are read from ../shared beside the tree.
  const shared = path.join(cache, 'shared');
  if (!existsSync(shared)) symlinkSync(path.resolve(root, '../shared'), shared);
  return { label: `${sha} (base)`, dir, cache };
}

function run(tree: Tree, name: string, round: number): Figure[] {
  const bench = BENCHES[name];
  if (!bench) throw new Error(`unknown bench ${name}: ${Object.keys(BENCHES).join(', ')}`);
  const out = path.join(tree.cache, `${name}-${round}.json`);
  rmSync(out, { force: true });
  log(`\n### round ${round}: ${name} on ${tree.label}`);
  const started = performance.now();
  const printed = execFileSync(path.join(root, 'node_modules/.bin/tsx'), [...bench.args(tree), '--json', out], {
    cwd: tree.dir,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  writeFileSync(out.replace(/\.json$/, '.log'), printed);
  log(
    `took ${num((performance.now() - started) / 1000, 0)} s; load average ${os
      .loadavg()
      .map((l) => num(l))
      .join(' ')}`,
  );
  return bench.figures(JSON.parse(readFileSync(out, 'utf8')), printed);
}

const head: Tree = {
  label: `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain') ? '+changes' : ''} (this tree)`,
  dir: root,
  cache: path.join(os.homedir(), '.cache', 'lectern-bench', 'compare', 'head'),
};
mkdirSync(head.cache, { recursive: true });
const base = baseTree(args.base);
for (const tree of [base, head]) execFileSync('node', ['scripts/build-node.mjs'], { cwd: tree.dir, stdio: 'inherit' });

const names = args.benches.split(',');
const seen = new Map<string, { figure: Figure; base: number[]; head: number[] }>();
const rounds = Number(args.rounds);
for (let round = 1; round <= rounds; round++)
  for (const name of names) {
    const order = round % 2 === 1 ? [base, head] : [head, base];
    for (const tree of order)
      for (const figure of run(tree, name, round)) {
        const entry = seen.get(figure.name) ?? { figure, base: [], head: [] };
        (tree === base ? entry.base : entry.head).push(...(figure.samples ?? [figure.value]));
        seen.set(figure.name, entry);
      }
  }

const tolerance = Number(args.tolerance);
const rows = [...seen.values()].map(({ figure, base: b, head: h }) => {
  const before = median(b);
  const after = median(h);
  // Positive: worse than before, whichever way the figure counts.
  const worse = (figure.higher ? before / after - 1 : after / before - 1) * 100;
  return { name: figure.name, before, after, worse, holds: worse <= tolerance, runs: [b, h] };
});
log(`\n## ${head.label} beside ${base.label}, medians over ${rounds} round(s) (chat: over every answer)\n`);
log(
  table(
    ['figure', base.label, head.label, 'worse by', `within ${tolerance} %`],
    rows.map((r) => [
      r.name,
      num(r.before, 3),
      num(r.after, 3),
      `${r.worse >= 0 ? '+' : ''}${num(r.worse)} %`,
      r.holds ? 'yes' : 'NO',
    ]),
    new Set([1, 2, 3]),
  ),
);
if (args.json) writeFileSync(args.json, JSON.stringify({ base: base.label, head: head.label, rounds, rows }, null, 2));
