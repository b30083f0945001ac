import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturesDir } from './app.js';

/**
 * Writes the beamer slide of the scanned fixtures as `dir`/slide.png, rendered by pdftoppm at 100 dpi, and returns
 * its bytes: a real scan for vision chats, small enough for the OCR path to read quickly.
 */
export function writeSlidePng(dir: string): Buffer {
  execFileSync('pdftoppm', [
    '-r',
    '100',
    '-png',
    '-singlefile',
    join(fixturesDir, 'scanned', 'scan05-beamer-slide4.pdf'),
    join(dir, 'slide'),
  ]);
  return readFileSync(join(dir, 'slide.png'));
}
