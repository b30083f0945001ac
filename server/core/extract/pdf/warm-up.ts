import { buildChunks } from '../../chunking/index.js';
import { assemblePdf, readPdfPages } from './index.js';
import { warmUpPdf } from './warm-up-pdf.js';

/**
 * Reads the warm-up PDF `rounds` times (numbering aside, the same path as a real document: pages,
 * assembly, chunking), so that V8 has optimised that code before the first real document arrives.
 * Checks `stop` between rounds: once real work arrives, it is better done than warmed up for.
 * Returns the rounds done.
 */
export async function warmUpPdfReading(rounds: number, stop: () => boolean = () => false): Promise<number> {
  const data = warmUpPdf();
  let done = 0;
  for (; done < rounds && !stop(); done++) {
    const { blocks } = assemblePdf([await readPdfPages(data)]);
    buildChunks(
      blocks.map((b, i) => ({ block_id: `b${i}`, type: b.type, text: b.text, page: b.page, heading_level: b.heading_level ?? null })),
      { target_tokens: 256, overlap_tokens: 32, id_seed: 'warm-up' },
    );
  }
  return done;
}
