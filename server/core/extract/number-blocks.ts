import type { NumberedBlock } from '../tasks.js';
import type { ExtractedBlock } from './types.js';

/** Gives blocks their ids (b1, b2, … in reading order) and the heading path above each. */
export function numberBlocks(blocks: ExtractedBlock[]): NumberedBlock[] {
  const stack: { level: number; text: string }[] = [];
  return blocks.map((block, i) => {
    if (block.type === 'heading') {
      const level = block.heading_level ?? 1;
      while (stack.length > 0 && stack[stack.length - 1]!.level >= level) stack.pop();
    }
    const numbered: NumberedBlock = {
      ...block,
      block_id: `b${i + 1}`,
      order_index: i,
      hierarchy_path: stack.map((h) => h.text),
    };
    if (block.type === 'heading')
      stack.push({ level: block.heading_level ?? 1, text: block.text.replace(/\s+/g, ' ').trim() });
    return numbered;
  });
}
