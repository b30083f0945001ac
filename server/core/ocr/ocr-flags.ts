/**
 * Which OCR blocks a reviewer should look at first. Tesseract's mean word confidence is 0..100; on the
 * fixture scans clean body text reads at 85..96, while blocks with misread words (specks taken for letters,
 * degraded table cells, light text on dark bands) sit below 70. A flag is cheap to clear (approve the
 * block); a misreading that slips through unflagged is not, hence a threshold on the high side.
 */
export const FLAG_BELOW_CONFIDENCE = 70;

export const BLOCK_SOURCES = ['text', 'ocr'] as const;
export type BlockSource = (typeof BLOCK_SOURCES)[number];

/** Only OCR text is ever flagged: text from a text layer has no confidence to doubt. */
export function isFlagged(source: BlockSource | undefined, confidence: number | undefined | null): boolean {
  return source === 'ocr' && typeof confidence === 'number' && confidence < FLAG_BELOW_CONFIDENCE;
}
