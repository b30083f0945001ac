/**
 * OCR in other languages through the HTTP API, with the real server, pool and tesseract: languages added
 * to the server's data folder by `lectern languages add` while it runs (from the npm packages' local
 * copies), several per job (`eng+deu`), generated scans in German, Arabic and Chinese read with them, a
 * German page and an English page with German, French and Spanish words read with several languages at
 * least as well as with the best one of them, the detected language recorded on the job (from OCR, and from
 * a text layer), Arabic read in logical order (scanned, and in a text layer laid out right to left), and the
 * refusals: an unknown code (400), a language not installed (409, with the command that adds it), also again
 * after `languages remove`.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { ingest, json, listAll, repoRoot, startServer } from '../helpers/app.js';
import { lecternAsync } from '../helpers/keys-cli.js';
import { rtlTextPdf, scriptScan, SCRIPT_FONTS } from '../helpers/make-script-scan.js';
import { useServer } from '../helpers/use-server.js';

const localCopy = (code: string) => join(repoRoot, 'node_modules', '@tesseract.js-data', code);

// The server owns its folder, so `lectern languages add --from` goes through it: it reads the local
// copies itself, from inside its document_roots.
const server = useServer(() =>
  startServer({ settings: { document_roots: [join(repoRoot, 'node_modules', '@tesseract.js-data')] } }),
);

const languages = (...args: string[]) =>
  lecternAsync(['languages', ...args, '--data-dir', server.dataDir], { env: { SERVICE_API_KEY: server.key } });

const GERMAN = [
  'Größere Änderungen im Straßenbau',
  'Die Straße führt über die Brücke zum Rathaus.',
  'Wir müssen die Prüfung bis Freitag abschließen.',
];
const ARABIC = [
  'التقرير السنوي للشركة الوطنية',
  'ذهب الطالب إلى المدرسة في الصباح الباكر.',
  'تعمل الشركة على تطوير برامج جديدة للحاسوب.',
];
const CHINESE = ['年度报告', '我们今天在图书馆学习中文。', '这家公司正在开发新的计算机软件。'];

const textOf = (blocks: Record<string, any>[]) => blocks.map((b) => b.text).join('\n');

const SERIF = '/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf';
/** A German page with 20 words that need an umlaut or ß: English data reads them bare (Baume, Madchen, Uber). */
const UMLAUTS = [
  'Über die Bäume im Garten',
  'Das Mädchen öffnete die Tür zur Küche.',
  'Die Vögel saßen auf den Ästen der Bäume.',
  'Müller kaufte Äpfel, Käse und Brötchen.',
  'Die Größe der Fähre überraschte alle Gäste.',
  'Über Nacht wurden die Straßen glatt.',
];
/** English prose with German, French and Spanish words: 20 of them accented. */
const MIXED = [
  'Notes from a summer abroad',
  'The Müller family moved to Zürich after the war.',
  'Her café served crème brûlée and pâté every Friday.',
  'In Málaga the señor ordered jamón and a piña colada.',
  'We met on the Königstraße near the Gästehaus in Köln.',
  'The naïve garçon admired the façade and the château.',
  'Mañana the niño will visit the fiesta in León.',
];
const wordsOf = (s: string) =>
  s
    .split(/\s+/)
    .map((w) => w.replace(/[.,]+$/, ''))
    .filter(Boolean);
const accented = (lines: readonly string[]) => wordsOf(lines.join(' ')).filter((w) => /[^\x00-\x7f]/.test(w));

/** How many of the page's words a job read right (as a multiset: each read word counts once). */
async function wordsRight(jobId: string, lines: readonly string[]): Promise<{ right: number; read: string[] }> {
  const read = wordsOf(textOf(await listAll(server, `/jobs/${jobId}/blocks`)));
  const left = new Map<string, number>();
  for (const w of read) left.set(w, (left.get(w) ?? 0) + 1);
  let right = 0;
  for (const w of wordsOf(lines.join(' '))) {
    const n = left.get(w) ?? 0;
    if (n > 0) {
      right++;
      left.set(w, n - 1);
    }
  }
  return { right, read };
}

describe('OCR languages', () => {
  it('refuses an unknown code (400, listing the known ones) and a language not installed (409, saying how to add it), creating no job', async () => {
    const png = scriptScan(GERMAN, { font: SCRIPT_FONTS.latin });
    const before = (await json(await server.call('GET', '/jobs'))).total;
    const unknown = await server.upload('de.png', png, { ocr_language: 'eng+klingon' });
    expect(unknown.status).toBe(400);
    const u = (await json(unknown)).error;
    expect(u).toMatchObject({
      code: 'OCR_LANGUAGE_UNKNOWN',
      details: { language: 'eng+klingon', unknown: ['klingon'] },
    });
    expect(u.details.known).toEqual(
      expect.arrayContaining(['eng', 'deu', 'fra', 'spa', 'ita', 'por', 'rus', 'ara', 'chi_sim', 'jpn']),
    );
    const missing = await server.upload('de.png', png, { ocr_language: 'eng+deu' });
    expect(missing.status).toBe(409);
    expect((await json(missing)).error).toMatchObject({
      code: 'OCR_LANGUAGE_MISSING',
      message: expect.stringContaining('lectern languages add deu'),
      details: { language: 'eng+deu', missing: ['deu'], installed: ['eng'], install: 'lectern languages add deu' },
    });
    expect((await json(await server.call('GET', '/jobs'))).total).toBe(before);
  });

  it('reads languages added by `lectern languages add` while the server runs: German with eng+deu, recording German as detected', async () => {
    for (const code of ['deu', 'ara', 'chi_sim']) {
      const r = await languages('add', code, '--from', localCopy(code));
      expect(r.status, r.stderr).toBe(0);
    }
    const job = await ingest(server, 'de.png', scriptScan(GERMAN, { font: SCRIPT_FONTS.latin, seed: 11 }), {
      ocr_language: 'eng+deu',
    });
    expect(job.options.ocr_language).toBe('eng+deu');
    expect(job.ocr.pages).toEqual([expect.objectContaining({ page: 1, language: 'eng+deu' })]);
    expect(job.detected_language).toMatchObject({ code: 'deu', ocr_language: 'deu', source: 'ocr' });
    const blocks = await listAll(server, `/jobs/${job.job_id}/blocks`);
    expect(blocks[0]).toMatchObject({ type: 'heading', text: GERMAN[0], language: 'eng+deu', source: 'ocr' });
    // Umlauts and ß read right: the German model is in use, not only the English one.
    expect(textOf(blocks)).toContain('Die Straße führt über die Brücke zum Rathaus.');
    expect(textOf(blocks)).toContain('Wir müssen die Prüfung bis Freitag abschließen.');
  });

  it('reads a German page with eng+deu as well as with deu alone: every umlaut and ß kept', async () => {
    const png = scriptScan(UMLAUTS, { font: SERIF, dpi: 300, sizePt: 11, seed: 21 });
    const results: Record<string, { right: number; read: string[] }> = {};
    for (const lang of ['eng', 'deu', 'eng+deu']) {
      const job = await ingest(server, `umlauts-${lang}.png`, png, { ocr_language: lang });
      expect(job.ocr.pages[0].language).toBe(lang);
      results[lang] = await wordsRight(job.job_id, UMLAUTS);
    }
    const all = wordsOf(UMLAUTS.join(' ')).length;
    // English data alone drops the marks: the page is worth reading in German at all.
    expect(results.eng!.right).toBeLessThan(all - 10);
    expect(results['eng+deu']!.right).toBeGreaterThanOrEqual(results.deu!.right);
    expect(results['eng+deu']!.read).toEqual(expect.arrayContaining(accented(UMLAUTS)));
    expect(results['eng+deu']!.right).toBe(all);
  });

  it('reads English with German, French and Spanish words with all four languages at least as well as with any one', async () => {
    for (const code of ['fra', 'spa']) {
      const r = await languages('add', code, '--from', localCopy(code));
      expect(r.status, r.stderr).toBe(0);
    }
    const png = scriptScan(MIXED, { font: SCRIPT_FONTS.latin, dpi: 300, sizePt: 11, seed: 22 });
    const right: Record<string, number> = {};
    let combined: string[] = [];
    for (const lang of ['eng', 'deu', 'fra', 'spa', 'eng+deu+fra+spa']) {
      const job = await ingest(server, `mixed-${lang}.png`, png, { ocr_language: lang });
      const r = await wordsRight(job.job_id, MIXED);
      right[lang] = r.right;
      if (lang.includes('+')) combined = r.read;
    }
    const best = Math.max(right.eng!, right.deu!, right.fra!, right.spa!);
    // No one language reads every accent of the page (each lacks some letters)...
    expect(best).toBeLessThan(wordsOf(MIXED.join(' ')).length);
    // ...the four together read each word with the language that has its letters.
    expect(right['eng+deu+fra+spa']).toBeGreaterThanOrEqual(best);
    expect(combined).toEqual(expect.arrayContaining(accented(MIXED)));
  });

  it('reads an Arabic scan in logical order and records Arabic', async () => {
    const job = await ingest(server, 'ar.png', scriptScan(ARABIC, { font: SCRIPT_FONTS.arabic, rtl: true, seed: 12 }), {
      ocr_language: 'ara',
    });
    expect(job.detected_language).toMatchObject({ code: 'ara', ocr_language: 'ara', source: 'ocr' });
    const text = textOf(await listAll(server, `/jobs/${job.job_id}/blocks`));
    // Logical order: the sentence's first word first (visually the rightmost).
    expect(text).toContain('ذهب الطالب إلى المدرسة');
    expect(text).toContain('تعمل الشركة على تطوير');
    const chunks = await listAll(server, `/jobs/${job.job_id}/chunks`);
    expect(chunks.map((c) => c.text).join('\n')).toContain('ذهب الطالب إلى المدرسة');
  });

  it('reads a Chinese scan as Chinese writes it (no spaces between characters) and records Chinese', async () => {
    const job = await ingest(server, 'zh.png', scriptScan(CHINESE, { font: SCRIPT_FONTS.han, seed: 13 }), {
      ocr_language: 'chi_sim',
    });
    expect(job.detected_language).toMatchObject({ code: 'zho', ocr_language: 'chi_sim', source: 'ocr' });
    const blocks = await listAll(server, `/jobs/${job.job_id}/blocks`);
    expect(blocks[0]).toMatchObject({ type: 'heading', text: '年度报告' });
    expect(textOf(blocks)).toContain('图书馆');
    expect(textOf(blocks)).toMatch(/开发新的计算机软件/);
  });

  it('records the language of a text layer and reads a right-to-left text layer in logical order, embedded Latin and numbers kept', async () => {
    const lines = [
      'التقرير السنوي للشركة',
      'ذهب الطالب إلى المدرسة في الصباح الباكر.',
      'حصلت الشركة على شهادة ISO 9001 في عام 2024 بعد مراجعة طويلة.',
      'שלום עולם, זהו מסמך בדיקה בעברית.',
    ];
    const job = await ingest(server, 'ar-text.pdf', await rtlTextPdf(lines, SCRIPT_FONTS.arabic));
    expect(job.pages_needing_ocr).toEqual([]);
    expect(job.detected_language).toMatchObject({ code: 'ara', ocr_language: 'ara', source: 'text' });
    const blocks = await listAll(server, `/jobs/${job.job_id}/blocks`);
    expect(blocks[0]).toMatchObject({ type: 'heading', text: lines[0], source: 'text' });
    const text = textOf(blocks);
    expect(text).toContain(lines[1]);
    expect(text).toContain(lines[2]);
    expect(text).toContain(lines[3]);
  });

  it('answers 409 again once the language is removed (the undo of add), and reads it again once re-added', async () => {
    expect((await languages('remove', 'deu')).status).toBe(0);
    const png = scriptScan(GERMAN, { font: SCRIPT_FONTS.latin });
    const missing = await server.upload('de.png', png, { ocr_language: 'eng+deu' });
    expect(missing.status).toBe(409);
    expect((await json(missing)).error.details).toMatchObject({
      missing: ['deu'],
      install: 'lectern languages add deu',
    });
    expect((await languages('add', 'deu', '--from', localCopy('deu'))).status).toBe(0);
    const job = await ingest(server, 'de.png', png, { ocr_language: 'deu' });
    expect(job.detected_language?.code).toBe('deu');
  });
});
