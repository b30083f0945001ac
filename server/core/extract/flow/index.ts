/** Extractors for the flow formats (no page geometry): DOCX, HTML, Markdown and plain text. */
export { decodeText } from './decode.js';
export { DocxExtractError, extractDocx } from './docx.js';
export { extractHtml } from './html.js';
export { extractMarkdown } from './markdown.js';
export { extractText } from './text.js';
