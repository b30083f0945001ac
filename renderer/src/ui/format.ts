export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(0)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export function when(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

export const label = (s: string): string => s.replace(/_/g, ' ');

/** Confidence as a percentage whether the server sends 0-1 (OCR engines vary) or 0-100. */
export function percent(confidence: number): number {
  return Math.round(confidence <= 1 ? confidence * 100 : confidence);
}
