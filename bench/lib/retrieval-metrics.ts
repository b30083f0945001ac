/** Binary-relevance IR metrics as BEIR reports them (qrels scores here are all 1). */

export function ndcgAt(ranked: readonly string[], relevant: ReadonlyMap<string, number>, k: number): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    const gain = relevant.get(id) ?? 0;
    if (gain > 0) dcg += (2 ** gain - 1) / Math.log2(i + 2);
  });
  const ideal = [...relevant.values()].sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((s, g, i) => s + (2 ** g - 1) / Math.log2(i + 2), 0);
  return idcg > 0 ? dcg / idcg : 0;
}

export function recallAt(ranked: readonly string[], relevant: ReadonlyMap<string, number>, k: number): number {
  const wanted = [...relevant].filter(([, g]) => g > 0).map(([id]) => id);
  if (wanted.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return wanted.filter((id) => top.has(id)).length / wanted.length;
}
