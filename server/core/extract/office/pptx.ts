/**
 * PPTX -> blocks: the slides in the presentation's order (its slide list, not the part names), each
 * slide's number its page; per slide its title as a heading, its text, lists and tables (pptx-slide.ts),
 * then its speaker notes as paragraphs, the first of them marked "Speaker notes:" so that a reader (and a
 * chunk) tells them from what the slide shows. Slides have no page geometry here: blocks carry no box.
 */
import { firstH1, makeFlowResult } from '../flow/result.js';
import { checkPageCount, DEFAULT_LIMITS, type DocumentLimits } from '../limits.js';
import type { ExtractedBlock, ExtractionResult, ProgressFn } from '../types.js';
import { OoxmlPackage, packageError, relId } from './ooxml-package.js';
import { readSlide } from './pptx-slide.js';
import { SheetBudget } from './sheet-grid.js';

const CODE = 'PPTX_INVALID';
export const NOTES_LABEL = 'Speaker notes: ';

function slideParts(pkg: OoxmlPackage, presentation: string): string[] {
  const rels = pkg.relationships(presentation);
  const slides: string[] = [];
  const found = pkg.parse(presentation, {
    open(name, attrs) {
      if (name !== 'sldId') return;
      const rel = rels.get(relId(attrs));
      if (rel && !rel.external && rel.type.endsWith('/slide')) slides.push(rel.target);
    },
  });
  if (!found) throw packageError(CODE, `Not a readable PPTX file: it has no ${presentation}`);
  return slides;
}

export async function extractPptx(
  data: Uint8Array,
  limits: DocumentLimits = DEFAULT_LIMITS,
  onProgress?: ProgressFn,
): Promise<ExtractionResult> {
  // Every part is streamed; none is held whole as XML.
  const pkg = await OoxmlPackage.open(data, limits, CODE, 'PPTX', { held: () => false, heapPerByte: 0 });
  const presentation = pkg.rootPart('/officeDocument') ?? 'ppt/presentation.xml';
  const slides = slideParts(pkg, presentation);
  checkPageCount(slides.length, limits);
  const budget = new SheetBudget(limits);
  const blocks: ExtractedBlock[] = [];
  const warnings: string[] = [];
  for (const [i, part] of slides.entries()) {
    const page = i + 1;
    if (!pkg.has(part)) {
      warnings.push(`PPTX: slide ${page} is missing from the file`);
      continue;
    }
    const slide = readSlide(pkg, part, page, budget);
    blocks.push(...slide.title, ...slide.body);
    const notesPart = [...pkg.relationships(part).values()].find(
      (r) => !r.external && r.type.endsWith('/notesSlide'),
    )?.target;
    if (notesPart && pkg.has(notesPart)) {
      const notes = readSlide(pkg, notesPart, page, budget, true).body;
      if (notes[0]) notes[0] = { ...notes[0], text: NOTES_LABEL + notes[0].text };
      blocks.push(...notes);
    }
    onProgress?.(page, slides.length);
  }
  const result = makeFlowResult('pptx', blocks, pkg.title() ?? firstH1(blocks), warnings);
  result.total_pages = Math.max(1, slides.length);
  result.pages = Array.from({ length: result.total_pages }, (_, i) => ({
    page: i + 1,
    width: 0,
    height: 0,
    needs_ocr: false,
  }));
  return result;
}
