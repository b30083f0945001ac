/**
 * Recognising a grey page image the right way up. Tesseract's own orientation detection needs the OSD model,
 * which Lectern does not ship (npm has it as @tesseract.js-data/osd 1.0.0; tesseract.js's detect() with it is
 * not measured here), so orientation is found by trying: the page is read as it is, and only when
 * that reading is poor are the three other quarter-turns tried on a half-size copy (a quarter of the pixels),
 * keeping the turn that yields the most confident words. An upright page pays nothing; a turned one pays one
 * to three half-size reads plus the final full read; a blank page is not read at all.
 */
import { mergeReadings, type PageReading } from './merge-readings.js';
import { halve, isBlank, normalisePolarity, rotateGrey, toPgm, type GreyRaster, type QuarterTurn } from './raster.js';
import type { TessBlock } from './ocr-lines.js';
import type { OcrEngine } from './tesseract.js';

export interface Recognition {
  blocks: TessBlock[];
  /** Tesseract's mean word confidence for the page, 0..100. */
  confidence: number;
  /** Clockwise quarter-turn applied to the image to read it upright. */
  turn: QuarterTurn;
  /** The image as read (after the turn), in whose pixels the blocks' boxes are. */
  image: GreyRaster;
}

export interface RecognizeOptions {
  /** Resolution of the image; without it tesseract guesses from letter sizes (and says so on stderr). */
  dpi: number;
  /** Try other quarter-turns when the page reads poorly or sideways (default true). */
  detectRotation?: boolean;
}

/** A page reading at least this confident is taken as upright without trying other turns. */
const UPRIGHT_CONFIDENCE = 70;
/** A probe this confident ends the search early. */
const SURE_CONFIDENCE = 80;

type Reading = PageReading;

async function read(engine: OcrEngine, image: GreyRaster, dpi: number): Promise<Reading> {
  // Only the block tree is asked for: text, hOCR and TSV would each be another pass over the result.
  const res = await engine.worker.recognize(
    toPgm(image),
    // tesseract.js passes unknown keys through to tesseract as parameters for this call only; its types
    // list only its own options, hence the cast.
    { user_defined_dpi: String(Math.round(dpi)) } as Parameters<OcrEngine['worker']['recognize']>[1],
    { blocks: true, text: false, hocr: false, tsv: false },
  );
  const blocks = (res.data.blocks ?? []) as unknown as TessBlock[];
  return { blocks, confidence: res.data.confidence };
}

/** Confident words with some substance: upside-down or sideways text reads as short, unsure fragments. */
function score(r: Reading): number {
  let s = 0;
  for (const b of r.blocks) {
    for (const p of b.paragraphs) {
      for (const l of p.lines) {
        for (const w of l.words) {
          if (w.confidence >= 60 && (w.text.match(/[\p{L}\p{N}]/gu)?.length ?? 0) >= 2) s += w.confidence / 100;
        }
      }
    }
  }
  return s;
}

/**
 * Tesseract reads a page turned by a quarter (its layout pass takes the lines for vertical text), often with
 * high confidence, but then every word box is taller than wide. Such a page is sideways, whatever the
 * confidence says: it is read again turned, so that reading order and sizes (hence headings) are right.
 */
function isSideways(r: Reading): boolean {
  let tall = 0;
  let all = 0;
  for (const b of r.blocks) {
    for (const p of b.paragraphs) {
      for (const l of p.lines) {
        for (const w of l.words) {
          if (w.text.length < 4) continue;
          all++;
          if (w.bbox.y1 - w.bbox.y0 > w.bbox.x1 - w.bbox.x0) tall++;
        }
      }
    }
  }
  return all >= 3 && tall > 0.5 * all;
}

/** `startEngine` is called only for a page with ink, so a blank page never starts a thread's engine. */
export async function recognizeUpright(
  startEngine: () => Promise<OcrEngine>,
  raster: GreyRaster,
  opts: RecognizeOptions,
): Promise<Recognition> {
  const image = normalisePolarity(raster, opts.dpi / 300);
  if (isBlank(image)) return { blocks: [], confidence: 0, turn: 0, image };
  const engine = await startEngine();
  const first = await read(engine, image, opts.dpi);
  const sideways = isSideways(first);
  if (opts.detectRotation === false || (!sideways && first.confidence >= UPRIGHT_CONFIDENCE)) {
    return { ...first, turn: 0, image };
  }
  const small = halve(image);
  const dpi = opts.dpi / 2;
  // A sideways page is one of the two quarter-turns; otherwise the baseline is the half-size upright read.
  let best: { turn: QuarterTurn; score: number } = {
    turn: 0,
    score: sideways ? -1 : score(await read(engine, small, dpi)),
  };
  const turns = sideways ? ([90, 270] as const) : ([180, 90, 270] as const);
  for (const turn of turns) {
    const probe = await read(engine, rotateGrey(small, turn), dpi);
    const s = score(probe);
    if (s > best.score && !isSideways(probe)) best = { turn, score: s };
    if (probe.confidence >= SURE_CONFIDENCE && best.turn === turn) break;
  }
  if (best.turn === 0) return { ...first, turn: 0, image };
  const turned = rotateGrey(image, best.turn);
  return { ...(await read(engine, turned, opts.dpi)), turn: best.turn, image: turned };
}

/**
 * A page read with several languages (`eng+deu`): the first language finds the page's turn as above, then
 * every other language reads the upright image on its own and the readings are merged word by word (see
 * merge-readings.ts). Costs one full read per language; tesseract's combined model cost about 1.4 reads for
 * two languages, but read a German page's `Bäume` as `Baume`.
 */
export async function recognizeInLanguages(
  startEngines: ReadonlyArray<() => Promise<OcrEngine>>,
  raster: GreyRaster,
  opts: RecognizeOptions,
): Promise<Recognition> {
  const [first, ...rest] = startEngines;
  if (!first) throw new Error('no OCR language');
  const rec = await recognizeUpright(first, raster, opts);
  if (rest.length === 0 || rec.blocks.length === 0) return rec;
  const readings: Reading[] = [rec];
  for (const start of rest) readings.push(await read(await start(), rec.image, opts.dpi));
  return { ...rec, ...mergeReadings(readings) };
}
