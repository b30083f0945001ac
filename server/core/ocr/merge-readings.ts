/**
 * One page read with several languages, word by word. Tesseract's own `eng+deu` reads each word with the
 * language that read the word before and tries the others only when that reading is not acceptable; a
 * model whose alphabet lacks a letter reads it as the bare letter, fully confident (`Baume` for Bäume), so
 * the first language keeps the word and the others never see it. Here the page is read with each language on
 * its own, and each word takes the best of the readings of its box; the structure (blocks, lines) is that of
 * the reading that is surest over the whole page.
 */
import type { TessBlock, TessBox, TessWord } from './ocr-lines.js';

export interface PageReading {
  blocks: TessBlock[];
  /** Mean word confidence of the page, 0..100. */
  confidence: number;
}

/** Two readings of one box this much apart (in 0..100 points) are taken as equally sure: confidences are whole numbers and saturate near 96. */
const SAME_CONFIDENCE = 1;
/** A reading this much less sure than the surest of a word's readings is out of the running. */
const CONTENDER_MARGIN = 5;
/** Boxes of two readings overlapping this much (intersection over union) are the same word. */
const SAME_BOX = 0.5;

const marks = (s: string): number => s.normalize('NFD').match(/\p{M}/gu)?.length ?? 0;
const bare = (s: string): string => s.normalize('NFD').replace(/\p{M}/gu, '');

function overlap(a: TessBox, b: TessBox): number {
  const w = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
  const h = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  const area = (r: TessBox): number => Math.max(0, r.x1 - r.x0) * Math.max(0, r.y1 - r.y0);
  return inter / (area(a) + area(b) - inter);
}

function wordsOf(blocks: readonly TessBlock[]): TessWord[] {
  const out: TessWord[] = [];
  for (const b of blocks) for (const p of b.paragraphs) for (const l of p.lines) out.push(...l.words);
  return out;
}

interface Candidate {
  text: string;
  confidence: number;
  /** How many readings read the box as this text. */
  votes: number;
}

/**
 * Whether `c` should replace `held`. The same letters with more marks win when about as sure: the ink of an accent
 * is on the page, and only a model that has the accented letter can say so (the others drop the mark at full
 * confidence). Otherwise the surer reading wins, and between equally sure ones the one more readings agree on;
 * a full tie keeps what is held (the page's surest reading).
 */
function beats(c: Candidate, held: Candidate): boolean {
  const near = Math.abs(c.confidence - held.confidence) <= CONTENDER_MARGIN;
  if (near && bare(c.text) === bare(held.text) && marks(c.text) !== marks(held.text))
    return marks(c.text) > marks(held.text);
  if (Math.abs(c.confidence - held.confidence) > SAME_CONFIDENCE) return c.confidence > held.confidence;
  return c.votes > held.votes;
}

/** The best text for one word of the base reading, given the same box in the other readings. */
function bestOf(word: TessWord, others: ReadonlyArray<readonly TessWord[]>): TessWord {
  const readings: TessWord[] = [word];
  for (const words of others) {
    let match: TessWord | null = null;
    let best = SAME_BOX;
    for (const w of words) {
      const o = overlap(word.bbox, w.bbox);
      if (o >= best) {
        best = o;
        match = w;
      }
    }
    if (match) readings.push(match);
  }
  if (readings.length === 1) return word;
  const top = Math.max(...readings.map((r) => r.confidence));
  const byText = new Map<string, Candidate>();
  for (const r of readings) {
    const c = byText.get(r.text) ?? { text: r.text, confidence: 0, votes: 0 };
    c.votes++;
    c.confidence = Math.max(c.confidence, r.confidence);
    byText.set(r.text, c);
  }
  let held = byText.get(word.text) as Candidate;
  const contenders = [...byText.values()]
    .filter((c) => c !== held && c.confidence >= top - CONTENDER_MARGIN)
    .sort((a, b) => b.confidence - a.confidence);
  for (const c of contenders) if (beats(c, held)) held = c;
  return held.text === word.text ? word : { ...word, text: held.text, confidence: held.confidence };
}

/**
 * Merges readings of one page image (the same pixels, each read with one language). The base is the reading
 * with the highest page confidence (the first of equals); each of its words takes the best reading of its
 * box. A word another reading split or joined differently has no match there and keeps the base's text.
 */
export function mergeReadings(readings: readonly PageReading[]): PageReading {
  if (readings.length === 0) return { blocks: [], confidence: 0 };
  let base = readings[0] as PageReading;
  for (const r of readings) if (r.confidence > base.confidence) base = r;
  if (readings.length === 1) return base;
  const others = readings.filter((r) => r !== base).map((r) => wordsOf(r.blocks));
  let sum = 0;
  let count = 0;
  const blocks = base.blocks.map((b) => ({
    ...b,
    paragraphs: b.paragraphs.map((p) => ({
      ...p,
      lines: p.lines.map((l) => ({
        ...l,
        words: l.words.map((w) => {
          const best = bestOf(w, others);
          sum += best.confidence;
          count++;
          return best;
        }),
      })),
    })),
  }));
  return { blocks, confidence: count ? sum / count : base.confidence };
}
