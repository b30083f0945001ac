/**
 * Offline study of fusion rules over the candidate lists `bench/retrieval.ts --dump FILE` wrote: nDCG@10 and
 * recall@100 of each rule on the even query ids (where parameters are chosen), the odd ids (held out) and all.
 * It only informs the choice; the figure that counts comes from `npm run bench:retrieval` through the product.
 *
 * Usage: tsx bench/lib/fusion-explore.ts DUMP.json [--dataset DIR]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { num, table } from './format.js';
import { ndcgAt, recallAt } from './retrieval-metrics.js';
import { readBeir } from './scifact.js';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { dataset: { type: 'string', default: path.resolve(import.meta.dirname, '../../../shared/eval/scifact') } },
});
type Pair = [string, number];
interface Dumped {
  id: string;
  keyword: Pair[];
  vector: Pair[];
}
const dumped = JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(positionals[0]!, 'utf8'))) as Dumped[];
const set = readBeir(args.dataset!);

type Rule = (kw: Pair[], vec: Pair[]) => string[];

function rank(scores: Map<string, number>): string[] {
  return [...scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([id]) => id);
}

const rrf =
  (k: number, wk: number, wv: number, depth: number): Rule =>
  (kw, vec) => {
    const s = new Map<string, number>();
    kw.slice(0, depth).forEach(([id], r) => s.set(id, (s.get(id) ?? 0) + wk / (k + r + 1)));
    vec.slice(0, depth).forEach(([id], r) => s.set(id, (s.get(id) ?? 0) + wv / (k + r + 1)));
    return rank(s);
  };

type Norm = (list: Pair[]) => Map<string, number>;
const minMax: Norm = (list) => {
  const xs = list.map((p) => p[1]);
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return new Map(list.map(([id, x]) => [id, hi > lo ? (x - lo) / (hi - lo) : 1]));
};
const zScore: Norm = (list) => {
  const xs = list.map((p) => p[1]);
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length) || 1;
  return new Map(list.map(([id, x]) => [id, (x - m) / sd]));
};
const byMax: Norm = (list) => {
  const hi = Math.max(...list.map((p) => p[1]));
  return new Map(list.map(([id, x]) => [id, hi > 0 ? x / hi : 0]));
};

/** a * keyword + (1 - a) * vector, each normalized over its own list; a document missing from a list gets the list's floor. */
const convex =
  (norm: Norm, a: number, depth: number, zeroFloor = false): Rule =>
  (kw, vec) => {
    const k = kw.length ? norm(kw.slice(0, depth)) : new Map<string, number>();
    const v = vec.length ? norm(vec.slice(0, depth)) : new Map<string, number>();
    const floor = (m: Map<string, number>) => (m.size ? Math.min(...m.values()) : 0);
    const fk = zeroFloor ? 0 : floor(k);
    const fv = zeroFloor ? 0 : floor(v);
    const s = new Map<string, number>();
    for (const id of new Set([...k.keys(), ...v.keys()]))
      s.set(id, a * (k.get(id) ?? fk) + (1 - a) * (v.get(id) ?? fv));
    return rank(s);
  };

function evaluate(rule: Rule) {
  const acc = { even: { n: 0, ndcg: 0, rec: 0 }, odd: { n: 0, ndcg: 0, rec: 0 }, all: { n: 0, ndcg: 0, rec: 0 } };
  for (const d of dumped) {
    const ranked = rule(d.keyword, d.vector).slice(0, 100);
    const rel = set.qrels.get(d.id)!;
    const n = ndcgAt(ranked, rel, 10);
    const r = recallAt(ranked, rel, 100);
    for (const key of ['all', Number(d.id) % 2 === 0 ? 'even' : 'odd'] as const) {
      acc[key].n++;
      acc[key].ndcg += n;
      acc[key].rec += r;
    }
  }
  return acc;
}

const rules: [string, Rule][] = [
  ['keyword', (kw) => kw.map((p) => p[0])],
  ['vector', (_, vec) => vec.map((p) => p[0])],
  ['rrf k60 d200 (the rank fusion before score fusion)', rrf(60, 1, 1, 200)],
];
const NORMS = [
  ['minmax', minMax],
  ['z', zScore],
  ['max', byMax],
] as const;
const grid = process.env.GRID === 'coarse';
if (grid) {
  for (const k of [10, 20, 60])
    for (const wk of [1, 1.5, 2])
      for (const d of [100, 200, 1000]) rules.push([`rrf k${k} wk${wk} d${d}`, rrf(k, wk, 1, d)]);
  for (const [name, norm] of NORMS) {
    for (const a of [0.3, 0.4, 0.5, 0.6, 0.7])
      for (const d of [100, 200, 1000]) rules.push([`${name} a${a} d${d}`, convex(norm, a, d)]);
  }
} else {
  for (const [name, norm] of NORMS) {
    for (const a of [0.35, 0.4, 0.45, 0.5, 0.55])
      for (const d of [100, 200])
        for (const zf of [false, true])
          rules.push([`${name} a${a} d${d}${zf ? ' floor0' : ''}`, convex(norm, a, d, zf)]);
  }
}
const out = rules.map(([name, rule]) => {
  const r = evaluate(rule);
  return { name, r };
});
out.sort((x, y) => y.r.even.ndcg / y.r.even.n - x.r.even.ndcg / x.r.even.n);
const f = (a: { n: number; ndcg: number; rec: number }) => [num(a.ndcg / a.n, 4), num(a.rec / a.n, 3)];
process.stdout.write(
  `${table(
    ['rule', 'even nDCG', 'even R@100', 'odd nDCG', 'odd R@100', 'all nDCG', 'all R@100'],
    out.map(({ name, r }) => [name, ...f(r.even), ...f(r.odd), ...f(r.all)]),
    new Set([1, 2, 3, 4, 5, 6]),
  )}\n`,
);
