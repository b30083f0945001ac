/**
 * What the `lectern` commands print, and how: results on stdout, everything for the person (progress,
 * notes, errors) on stderr; colour only on a terminal (never with NO_COLOR or TERM=dumb, always with
 * FORCE_COLOR), so piped output is plain text a script can read.
 */
type Stream = NodeJS.WriteStream;

export function colourOn(stream: Stream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  if (env.NO_COLOR !== undefined || env.TERM === 'dumb') return false;
  return Boolean(stream.isTTY);
}

const SGR = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  blue: [34, 39],
  cyan: [36, 39],
  magenta: [35, 39],
} as const;
export type Style = keyof typeof SGR;
export type Paint = Record<Style, (s: string) => string>;

export function painter(on: boolean): Paint {
  const p = {} as Paint;
  for (const [name, [a, b]] of Object.entries(SGR) as [Style, readonly [number, number]][])
    p[name] = on ? (s) => `\x1b[${a}m${s}\x1b[${b}m` : (s) => s;
  return p;
}

/** Colours for stdout and stderr, each decided by its own stream. */
export const out = painter(colourOn(process.stdout));
export const err = painter(colourOn(process.stderr));

export const print = (line = ''): void => void process.stdout.write(`${line}\n`);
export const note = (line = ''): void => void process.stderr.write(`${line}\n`);

/** The visible width of a string: escape sequences take no room. */
export const visible = (s: string): number => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').length;

export function columns(stream: Stream = process.stderr): number {
  return stream.isTTY && stream.columns > 0 ? stream.columns : 80;
}

/** A size as a person reads it: "21.9 MiB". */
export const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** Cuts a string to `width` characters, with an ellipsis when it was longer. */
export const fitEnd = (s: string, width: number): string =>
  s.length <= width ? s : `${s.slice(0, Math.max(0, width - 1))}…`;

/** Cuts the middle out of a long name (a path or URL): its start and its end tell it apart. */
export function fitMiddle(s: string, width: number): string {
  if (s.length <= width) return s;
  const tail = Math.ceil((width - 1) * 0.6);
  return `${s.slice(0, width - 1 - tail)}…${s.slice(s.length - tail)}`;
}

/** Rows under a header, each column as wide as its widest cell (`gh`'s tables). */
export function table(header: string[], rows: string[][], paint: Paint = out): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [paint.bold(line(header)), ...rows.map(line)];
}

/** "3 seconds ago", "2 days ago": when, as a person reads it (an ISO time in --json). */
export function ago(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  const units: [number, string][] = [
    [86400 * 365, 'year'],
    [86400 * 30, 'month'],
    [86400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units)
    if (s >= size) return `${Math.floor(s / size)} ${name}${Math.floor(s / size) > 1 ? 's' : ''} ago`;
  return s < 10 ? 'just now' : `${s} seconds ago`;
}

/** Pages as a reader cites them: "p. 3", "pp. 3–5", "pp. 2, 7". */
export function pages(list: readonly number[]): string {
  const ps = [...new Set(list)].sort((a, b) => a - b);
  if (ps.length === 0) return '';
  if (ps.length === 1) return `p. ${ps[0]}`;
  const contiguous = ps.every((p, i) => i === 0 || p === ps[i - 1]! + 1);
  return contiguous ? `pp. ${ps[0]}–${ps.at(-1)}` : `pp. ${ps.join(', ')}`;
}
