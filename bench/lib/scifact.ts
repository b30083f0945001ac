import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface BeirSet {
  corpus: { id: string; title: string; text: string }[];
  queries: Map<string, string>;
  /** query id -> (doc id -> relevance) */
  qrels: Map<string, Map<string, number>>;
}

/** A BEIR-format folder: corpus.jsonl, queries.jsonl and a qrels TSV (query-id, corpus-id, score). */
export function readBeir(dir: string, qrelsFile = 'qrels-train.tsv'): BeirSet {
  const lines = (f: string) =>
    readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter((l) => l.trim());
  const corpus = lines('corpus.jsonl').map((l) => {
    const d = JSON.parse(l) as { _id: string; title?: string; text?: string };
    return { id: d._id, title: d.title ?? '', text: d.text ?? '' };
  });
  const queries = new Map(
    lines('queries.jsonl').map((l) => {
      const q = JSON.parse(l) as { _id: string; text: string };
      return [q._id, q.text] as const;
    }),
  );
  const qrels = new Map<string, Map<string, number>>();
  for (const l of lines(qrelsFile).slice(1)) {
    const [q, d, s] = l.split('\t');
    if (!q || !d) continue;
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q)!.set(d, Number(s ?? 1));
  }
  return { corpus, queries, qrels };
}
