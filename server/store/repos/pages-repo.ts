/** A paged document's pages (PDF, images): size as shown, turn, and what OCR did on each. */
import type { Static } from 'typebox';
import type { Page } from '../../schemas/pages.js';
import type { PageOf, Paging } from './paging.js';

export type PageView = Static<typeof Page>;

/** A job's pages that need OCR, and those OCRed with how they were read. */
export interface OcrPages {
  needing: number[];
  read: OcrPageView[];
}

/** A page read by OCR: the language data used, tesseract's mean word confidence, the turn read upright. */
export interface OcrPageView {
  page: number;
  language: string;
  confidence: number | null;
  rotation: number | null;
}

export interface PagesRepo {
  /** In page order. */
  list(jobId: string, paging: Paging): Promise<PageOf<PageView>>;
  has(jobId: string, page: number): Promise<boolean>;
  /** Pages without a text layer, and pages read by OCR, each in page order. */
  ocrPages(jobId: string): Promise<OcrPages>;
}
