/** Small statistics shared by the benchmarks. */

/** The median (the mean of the two middle values for an even count); NaN for no values. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length
    ? ((s[Math.floor((s.length - 1) / 2)] as number) + (s[Math.ceil((s.length - 1) / 2)] as number)) / 2
    : NaN;
}
