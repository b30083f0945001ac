/**
 * The language a document is written in, detected from its extracted text (franc: trigram profiles of 187
 * languages, plus the script for Han, kana, Hangul, …). Runs in the pool with the extraction, on a sample of
 * the text: a scan's language is that of its first OCR pass, so a client can see that a German scan was read
 * with English data and re-read it with `eng+deu`.
 */
import { francAll } from 'franc';

import { LANGUAGE_CATALOG } from '../language-catalog.js';
import type { DetectedLanguage, ExtractedBlock } from './types.js';

/** Enough text to be sure and cheap (franc is linear in the sample; 8k chars cost ~5 ms). */
const SAMPLE_CHARS = 8000;
/** Below this many letters a guess is noise (a title page, a figure's labels). */
const MIN_LETTERS = 20;

/**
 * franc names individual languages where ISO 639-3 also has a macrolanguage most software uses (Standard
 * Arabic `arb` in `ara`, Mandarin `cmn` in `zho`, …): reported as the macrolanguage, as tesseract's data is.
 */
const MACRO: Record<string, string> = {
  arb: 'ara',
  cmn: 'zho',
  pes: 'fas',
  zlm: 'msa',
  ekk: 'est',
  lvs: 'lav',
  npi: 'nep',
  uzn: 'uzb',
  swh: 'swa',
  azj: 'aze',
  khk: 'mon',
  ydd: 'yid',
};

const letters = (s: string): number => s.match(/\p{L}/gu)?.length ?? 0;

export function detectLanguage(
  blocks: readonly Pick<ExtractedBlock, 'text' | 'type' | 'source'>[],
): DetectedLanguage | null {
  // Code and tables say little about the language; headers and footers repeat.
  const prose = blocks.filter(
    (b) => b.type !== 'code' && b.type !== 'table' && b.type !== 'header' && b.type !== 'footer',
  );
  let sample = '';
  let fromOcr = 0;
  for (const b of prose) {
    if (sample.length >= SAMPLE_CHARS) break;
    sample += `${b.text}\n`;
    if (b.source === 'ocr') fromOcr += b.text.length;
  }
  sample = sample.slice(0, SAMPLE_CHARS);
  if (letters(sample) < MIN_LETTERS) return null;
  const [best, second] = francAll(sample, { minLength: MIN_LETTERS });
  if (!best || best[0] === 'und') return null;
  const code = MACRO[best[0]] ?? best[0];
  // franc scores 1 for the best and less for the others: the margin says how sure it is.
  const confidence = Math.round((1 - (second?.[1] ?? 0)) * 100) / 100;
  const ocr = LANGUAGE_CATALOG.find((l) => l.iso639_3 === code)?.code ?? null;
  return { code, ocr_language: ocr, confidence, source: fromOcr > sample.length / 2 ? 'ocr' : 'text' };
}
