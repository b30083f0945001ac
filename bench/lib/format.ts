/** Plain-text table and number formatting for benchmark output. */

export function table(headers: string[], rows: string[][], rightAlign: ReadonlySet<number> = new Set()): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (rightAlign.has(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export const ms = (v: number): string =>
  Number.isFinite(v) ? (v >= 10_000 ? `${(v / 1000).toFixed(1)} s` : `${Math.round(v)} ms`) : '-';
export const num = (v: number, digits = 1): string => (Number.isFinite(v) ? v.toFixed(digits) : '-');
export const mib = (kb: number | null): string => (kb === null ? 'n/a' : `${(kb / 1024).toFixed(0)} MiB`);
