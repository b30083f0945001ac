import { colourOn, columns, fitEnd, fitMiddle, painter } from './term.js';

export interface BarState {
  label: string;
  /** 0..1 */
  fraction: number;
  /** What is happening: "reading p. 3/12", "embedding 40/80 chunks", "searchable"… */
  phase: string;
  state: 'active' | 'done' | 'failed';
}

export interface Progress {
  update(index: number, bar: BarState): void;
  /** Draws the last state and leaves the cursor under it. */
  finish(): void;
}

const LIVE_ROWS = 8;
const BAR_WIDTH = 24;

/**
 * A progress bar per document on a terminal (npm's and docker's way: finished lines stay, the live ones
 * are redrawn in place, at most ten times a second); without a terminal, one plain line each time a
 * document starts, finishes or fails, so a log reads well.
 */
export function createProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  const bars: BarState[] = [];
  const tty = Boolean(stream.isTTY);
  const paint = painter(colourOn(stream));
  const printed = new Set<number>();
  const announced = new Set<number>();
  let drawn = 0;
  let last = 0;
  let timer: NodeJS.Timeout | undefined;

  const line = (b: BarState, labelWidth: number): string => {
    const width = columns(stream);
    const filled = Math.round(Math.min(1, Math.max(0, b.fraction)) * BAR_WIDTH);
    const bar = '█'.repeat(filled) + '░'.repeat(BAR_WIDTH - filled);
    const colour = b.state === 'done' ? paint.green : b.state === 'failed' ? paint.red : paint.cyan;
    const icon = b.state === 'done' ? paint.green('✔') : b.state === 'failed' ? paint.red('✖') : paint.cyan('•');
    const pct = `${String(Math.round(b.fraction * 100)).padStart(3)}%`;
    const label = fitMiddle(b.label, labelWidth).padEnd(labelWidth);
    const room = Math.max(10, width - labelWidth - BAR_WIDTH - 12);
    return `${icon} ${label} ${colour(bar)} ${pct} ${fitEnd(b.phase, room)}`;
  };

  let shownLive = '';
  const draw = (): void => {
    last = Date.now();
    timer = undefined;
    const labelWidth = Math.min(40, Math.max(8, ...bars.map((b) => b.label.length)));
    // Finished documents are written once, above the live block, and scroll away like a log.
    let finished = '';
    bars.forEach((b, i) => {
      if (b.state !== 'active' && !printed.has(i)) {
        printed.add(i);
        finished += `${line(b, labelWidth)}\n`;
      }
    });
    const live = bars.filter((b) => b.state === 'active');
    const shown = live.slice(0, LIVE_ROWS);
    const more = live.length - shown.length;
    const block =
      shown.map((b) => `${line(b, labelWidth)}\n`).join('') +
      (more > 0 ? `${paint.dim(`  … and ${more} more`)}\n` : '');
    if (!finished && block === shownLive) return;
    stream.write(`${drawn ? `\x1b[${drawn}A\r\x1b[J` : ''}${finished}${block}`);
    shownLive = block;
    drawn = shown.length + (more > 0 ? 1 : 0);
  };

  const plain = (i: number, b: BarState): void => {
    if (b.state === 'active' && !announced.has(i)) {
      announced.add(i);
      stream.write(`${b.label}: ${b.phase}\n`);
    } else if (b.state !== 'active' && !printed.has(i)) {
      printed.add(i);
      stream.write(`${b.label}: ${b.phase}\n`);
    }
  };

  return {
    update(i, b) {
      bars[i] = b;
      if (!tty) return plain(i, b);
      const wait = 100 - (Date.now() - last);
      if (b.state !== 'active' || wait <= 0) {
        clearTimeout(timer);
        draw();
      } else timer ??= setTimeout(draw, wait);
    },
    finish() {
      clearTimeout(timer);
      if (tty) draw();
    },
  };
}
