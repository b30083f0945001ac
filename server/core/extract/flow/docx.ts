/**
 * DOCX -> blocks: mammoth turns the document into semantic HTML (headings from Word's heading
 * styles, nested lists from numbering, tables with header rows), and the HTML extractor does the
 * rest, so both formats share one set of block rules.
 */
import mammoth from 'mammoth';
import { DEFAULT_LIMITS, type DocumentLimits } from '../limits.js';
import type { ExtractionResult } from '../types.js';
import { MATH_RUN_STYLE, preprocessMath } from './docx-math.js';
import { htmlBlocks } from './html.js';
import { makeFlowResult } from './result.js';
import { checkZipInflation } from './zip-guard.js';

export class DocxExtractError extends Error {
  // A plain string property: errors reach the jobs API as structured-clone copies, not instances.
  readonly code = 'DOCX_INVALID' as const;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DocxExtractError';
  }
}

/**
 * Word styles mammoth does not map by default. Style names match case-insensitively. Pandoc's
 * names ("Source Code", "Image Caption"...) are listed too because pandoc-made DOCX files are common.
 */
const STYLE_MAP = [
  "p[style-name='Title'] => h1:fresh",
  "p[style-name='Subtitle'] => p:fresh",
  // Consecutive code paragraphs become one <pre>, one line per paragraph.
  "p[style-name='Code'] => pre:separator('\\n')",
  "p[style-name='Source Code'] => pre:separator('\\n')",
  "p[style-name='HTML Preformatted'] => pre:separator('\\n')",
  "p[style-name='Plain Text'] => pre:separator('\\n')",
  "r[style-name='Verbatim Char'] => code",
  "p[style-name='Caption'] => figcaption:fresh",
  "p[style-name='Image Caption'] => figcaption:fresh",
  "p[style-name='Table Caption'] => figcaption:fresh",
  // Equations, rewritten into runs of this style by docx-math.ts; :fresh keeps neighbours apart.
  `r.${MATH_RUN_STYLE} => span.math:fresh`,
  "p[style-name='Quote'] => blockquote > p:fresh",
  "p[style-name='Intense Quote'] => blockquote > p:fresh",
  "p[style-name='Block Text'] => blockquote > p:fresh",
  // Body-text styles ("List Paragraph", pandoc's "Compact") are deliberately not mapped: a user
  // mapping wins over mammoth's list detection, and numbered paragraphs would lose their list.
];

/**
 * Images become <img> with their alt text but no data: mammoth would otherwise base64-encode
 * every image into the HTML, which costs memory and time for bytes the extractor never reads.
 */
const NO_IMAGE_DATA = mammoth.images.imgElement(() => Promise.resolve({ src: '' }));

function invalid(data: Uint8Array, err: unknown): DocxExtractError {
  const reason = err instanceof Error ? err.message : String(err);
  // D0 CF 11 E0: an OLE2 compound file, i.e. a legacy .doc or a password-protected DOCX.
  const ole = data[0] === 0xd0 && data[1] === 0xcf && data[2] === 0x11 && data[3] === 0xe0;
  const hint = ole ? ' (this is an OLE2 file: a legacy .doc or a password-protected document)' : '';
  return new DocxExtractError(`Not a readable DOCX file${hint}: ${reason}`, { cause: err });
}

export async function extractDocx(
  data: Uint8Array,
  limits: DocumentLimits = DEFAULT_LIMITS,
): Promise<ExtractionResult> {
  if (data.length === 0) throw new DocxExtractError('Not a readable DOCX file: the file is empty');
  // mammoth (JSZip) holds each part it reads whole, as a string: a part's real size is known before it starts.
  await checkZipInflation(data, limits);
  let input = data;
  try {
    input = preprocessMath(data);
  } catch {
    // Equations are a bonus: a package the patcher cannot handle still goes to mammoth as is.
  }
  const buffer = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  let converted: Awaited<ReturnType<typeof mammoth.convertToHtml>>;
  try {
    converted = await mammoth.convertToHtml(
      { buffer },
      { styleMap: STYLE_MAP, convertImage: NO_IMAGE_DATA, externalFileAccess: false, ignoreEmptyParagraphs: true },
    );
  } catch (err) {
    throw invalid(data, err);
  }
  const { blocks, title } = htmlBlocks(converted.value);
  const warnings = converted.messages
    .filter((m) => !m.message.includes(MATH_RUN_STYLE)) // our own equation runs' undefined style
    .map((m) => `DOCX: ${m.message}`);
  return makeFlowResult('docx', blocks, title, warnings);
}
