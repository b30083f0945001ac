import type { BlockView } from '../views.js';

/** Page furniture (running heads, page numbers) is kept in blocks.jsonl but not in the readable document. */
const FURNITURE = new Set(['header', 'footer']);
const BULLET = /^\s*(?:[•◦▪‣∙·*\-–—]\s+)/;

/** One accepted block as Markdown, with the reviewer's text and type applied. */
export function blockMarkdown(b: BlockView): string | null {
  const type = b.edited_type ?? b.type;
  const text = (b.edited_text ?? b.text).trim();
  if (FURNITURE.has(type) || text === '') return null;
  switch (type) {
    case 'heading':
      return `${'#'.repeat(Math.min(6, Math.max(1, b.heading_level ?? 1)))} ${text.replace(/\s+/g, ' ')}`;
    case 'list_item':
      return `${'  '.repeat(b.indent_level ?? 0)}- ${text.replace(BULLET, '')}`;
    case 'code':
      return `\`\`\`${b.language ?? ''}\n${text}\n\`\`\``;
    case 'equation':
      return `$$\n${text}\n$$`;
    case 'figure':
      return `*[Figure: ${text}]*`;
    case 'caption':
      return `*${text}*`;
    default:
      return text;
  }
}

/** The reviewed document in reading order; consecutive list items stay one list. */
export function renderDocument(title: string | null, accepted: BlockView[]): string {
  const parts: string[] = [];
  let prevList = false;
  for (const b of accepted) {
    const md = blockMarkdown(b);
    if (md === null) continue;
    const isList = (b.edited_type ?? b.type) === 'list_item';
    if (isList && prevList) parts[parts.length - 1] += `\n${md}`;
    else parts.push(md);
    prevList = isList;
  }
  const body = parts.join('\n\n');
  return title && !body.startsWith('# ') ? `<!-- ${title.replace(/--/g, '—')} -->\n\n${body}\n` : `${body}\n`;
}
