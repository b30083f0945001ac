import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { enc, fixturesDir, ingest, json } from '../helpers/app.js';
import { embedAndWait, startServerWithModel } from '../helpers/embed-flow.js';
import { useDesk } from './helpers/desk.js';
import { screenshotDir, shot } from './helpers/screens.js';

// Search and chat in the desk, in Debian's chromium against the real server: the amsmath user guide (a fixture PDF
// with a two-page table of contents), real MiniLM embeddings, the extractive provider (no model) for
// answers that cite, and no chat model installed, so the default provider fails as on a first run.
// Relevance reads as a percentage and a bar, [S1] in an answer shows its source, twenty results leave
// the chat on screen, the contents pages come after real passages, a missing model says what to do in
// the desk, and an answer the extractive reader cannot quote says "not found".

const shots = screenshotDir('search-chat');
let manualId = '';
let menuId = '';
const desk = useDesk({
  start: () => startServerWithModel(),
  seed: async () => {
    manualId = await indexed('amsmath-userguide.pdf', readFileSync(join(fixturesDir, 'pdfs', 'amsmath-userguide.pdf')));
    // Every "sentence" here is one word: nothing the extractive reader can quote.
    menuId = await indexed('menu.md', enc('# Menu\n\nTea. Cake. Buns. Scones.\n'));
  },
  page: { viewport: { width: 1280, height: 720 } },
  timeout: 600_000,
});

async function indexed(name: string, data: Uint8Array): Promise<string> {
  const job = await ingest(desk.server, name, data);
  const done = await desk.server.call('POST', `/jobs/${job.job_id}/finalize`, {
    json: { finalize_policy: 'auto_approve_pending' },
  });
  expect(done.status).toBe(200);
  const { job: after } = await embedAndWait(desk.server, job.job_id);
  expect(after.status).toBe('indexed');
  return job.job_id;
}

async function openSearch(jobId: string): Promise<void> {
  await desk.page.goto(`${desk.server.url}/#/jobs/${jobId}/search`);
  await desk.page.waitForSelector('section.search-chat .panel.chat textarea');
}

async function searchFor(query: string): Promise<void> {
  await desk.page.fill('input[aria-label="Search query"]', query);
  await desk.page.press('input[aria-label="Search query"]', 'Enter');
  await desk.page.waitForFunction(() =>
    /result\(s\)/.test(document.querySelector('.panel.search p[aria-live]')?.textContent ?? ''),
  );
}

async function ask(question: string, provider: '' | 'extractive'): Promise<void> {
  const turns = await desk.page.locator('.chat-log .turn').count();
  await desk.page.selectOption('select.provider', provider);
  await desk.page.fill('textarea[aria-label="Question"]', question);
  await desk.page.click('button.ask');
  await desk.page.waitForFunction((n) => {
    const turn = document.querySelectorAll('.chat-log .turn')[n];
    // Finished: a status past asking and streaming, a model offered, or an error said.
    return Boolean(
      turn &&
        (/^(complete|pending_review|failed|cancelled|rejected)$/.test(turn.getAttribute('data-status') ?? '') ||
          turn.querySelector('.missing-model') ||
          /Error/.test(turn.textContent ?? '')),
    );
  }, turns);
}

describe('search and chat in the desk', () => {
  it('shows relevance people can read: the cosine score as a percentage and a bar, not a fusion score like 0.033', async () => {
    await openSearch(manualId);
    await searchFor('how to number equations');
    const api = await json(
      await desk.server.call('POST', '/search', {
        json: { job_id: manualId, query: 'how to number equations', top_k: 20 },
      }),
    );
    const shown = await desk.page.$$eval('.results li.source', (items) =>
      items.map((li) => ({
        text: li.querySelector('.relevance-text')?.textContent ?? '',
        meter: Number(li.querySelector('meter')?.getAttribute('value') ?? NaN),
        all: li.textContent ?? '',
      })),
    );
    expect(shown).toHaveLength(api.results.length);
    shown.forEach((s, i) => {
      const score = api.results[i].score;
      expect(s.meter).toBeCloseTo(score, 4);
      expect(s.text).toMatch(new RegExp(`^${Math.round(score * 100)}% · (strong|partial|weak) match$`));
      expect(s.all).not.toMatch(/score 0\.\d{3}/);
    });
    expect(shown[0]!.text).toMatch(/^[3-9]\d% /); // a passage about numbering equations reads as a real match
    await shot(desk.page, shots, 'relevance');
  });

  it('does not let tables of contents top the results: passages come first, the contents pages after them', async () => {
    const query = 'Split equations without alignment';
    await searchFor(query);
    // Every chunk of the manual, in the order search gives them.
    const api = await json(
      await desk.server.call('POST', '/search', { json: { job_id: manualId, query, top_k: 500 } }),
    );
    // The contents pages as extracted: table rows under the Contents heading (its running head "CONTENTS iii" is not one).
    const isContents = (r: { section_path: string[]; text: string }) =>
      r.section_path.includes('Contents') && r.text.includes('| --- |');
    const contents = api.results.filter(isContents);
    // The contents pages match (fusion ranks one of them above every passage: what used to top the list)...
    expect(contents.length).toBeGreaterThan(0);
    expect(Math.max(...contents.map((r: { rank_score: number }) => r.rank_score))).toBeGreaterThan(
      api.results[0].rank_score,
    );
    // ...and come after every passage.
    const firstContents = api.results.findIndex(isContents);
    expect(api.results.slice(firstContents).every(isContents)).toBe(true);
    const titles = await desk.page.$$eval('.results li.source > a', (as) => as.map((a) => a.textContent ?? ''));
    expect(titles).toHaveLength(20);
    expect(titles.filter((t) => t.includes('Contents'))).toEqual([]);
    // The first result is a passage about split equations, as on the screen.
    expect(api.results[0].text.toLowerCase()).toContain('split');
    expect(await desk.page.locator('.results li.source').first().getAttribute('data-chunk')).toBe(
      api.results[0].chunk_id,
    );
    await shot(desk.page, shots, 'contents-demoted');
  });

  it('keeps the chat on screen beside 20 results: the two panes scroll on their own', async () => {
    await searchFor('alignment of equations');
    const g = await desk.page.evaluate(() => {
      const box = (sel: string) => document.querySelector(sel)!.getBoundingClientRect();
      const results = document.querySelector('.results')!;
      const main = document.querySelector('main > section.search-chat')!;
      return {
        count: results.querySelectorAll('li').length,
        question: box('textarea[aria-label="Question"]').toJSON(),
        ask: box('button.ask').toJSON(),
        resultsScroll: results.scrollHeight > results.clientHeight,
        pageScroll:
          main.scrollHeight > main.clientHeight + 1 || document.documentElement.scrollHeight > innerHeight + 1,
        vh: innerHeight,
        vw: innerWidth,
      };
    });
    expect(g.count).toBe(20);
    expect(g.resultsScroll).toBe(true);
    expect(g.pageScroll).toBe(false);
    for (const b of [g.question, g.ask]) {
      expect(b.top).toBeGreaterThanOrEqual(0);
      expect(b.bottom).toBeLessThanOrEqual(g.vh);
      expect(b.right).toBeLessThanOrEqual(g.vw);
    }
    // Scrolling the results moves only them.
    const before = await desk.page.locator('textarea[aria-label="Question"]').boundingBox();
    await desk.page.locator('.results').evaluate((el) => el.scrollTo(0, el.scrollHeight));
    expect(await desk.page.locator('textarea[aria-label="Question"]').boundingBox()).toEqual(before);
    await shot(desk.page, shots, 'twenty-results-and-chat');
  });

  it('turns [S1] in an answer into a link that shows and highlights that source', async () => {
    await ask('How do I number equations in a multiline display?', 'extractive');
    const turn = desk.page.locator('.chat-log .turn').last();
    const cite = turn.locator('.answer a.cite').first();
    await cite.waitFor();
    const label = await cite.getAttribute('data-label');
    expect(label).toMatch(/^S\d+$/);
    expect(await cite.textContent()).toBe(`[${label}]`);
    await cite.click();
    const source = turn.locator(`.sources li[data-label="${label}"]`);
    await expect.poll(() => source.getAttribute('class')).toContain('highlight');
    const inView = await source.evaluate((li) => {
      const log = li.closest('.chat-log')!.getBoundingClientRect();
      const r = li.getBoundingClientRect();
      return r.top >= log.top - 1 && r.top < log.bottom;
    });
    expect(inView).toBe(true);
    // Still on this screen (the address names only the open conversation besides): the link shows the source,
    // the source's own link opens the desk.
    expect(new URL(desk.page.url()).hash.split('?')[0]).toBe(`#/jobs/${manualId}/search`);
    await shot(desk.page, shots, 'citation-highlighted');
  });

  it('says what to do in the desk when the default provider has no model: get it here or answer now with quotes, no CLI commands', async () => {
    await ask('How do I number equations?', '');
    const notice = desk.page.locator('.chat-log .turn').last().locator('.missing-model');
    await notice.waitFor();
    const text = await notice.textContent();
    expect(text).toMatch(/is not installed/);
    expect(text).not.toMatch(/lectern models|`/);
    expect(await notice.locator('button.get-model').isVisible()).toBe(true);
    expect(await notice.locator('a[href="#/models"]').count()).toBeGreaterThan(0);
    // The notice is in view in the chat's pane, not below what the reader sees.
    const seen = await notice.evaluate((el) => {
      const pane = el.closest('.chat-log')!.getBoundingClientRect();
      const r = el.getBoundingClientRect();
      return r.top >= pane.top - 1 && r.bottom <= pane.bottom + 1;
    });
    expect(seen).toBe(true);
    await shot(desk.page, shots, 'model-missing');
    await notice.locator('button.answer-with-quotes').click();
    await desk.page.locator('.chat-log .turn').last().locator('.answer a.cite').first().waitFor();
  });

  it('says "not found" plainly when the extractive reader finds nothing to quote, instead of an empty answer', async () => {
    await openSearch(menuId);
    await ask('Is there tea on the menu?', 'extractive');
    const turn = desk.page.locator('.chat-log .turn').last();
    expect(await turn.getAttribute('class')).toContain('not-found');
    expect(await turn.locator('.answer .not-found-label').textContent()).toBe('Not found. ');
    expect((await turn.locator('.answer').textContent())!.length).toBeGreaterThan('Not found. '.length);
    const session = await json(
      await desk.server.call('POST', '/chat', {
        json: { job_id: menuId, question: 'Is there tea on the menu?', llm_provider: 'extractive' },
      }),
    );
    // Retrieval found the menu; only the reader had nothing to quote from it.
    expect(session.sources.length).toBeGreaterThan(0);
    expect(session).toMatchObject({ not_found: true, citations: [] });
    expect(session.answer.trim()).not.toBe('');
    await shot(desk.page, shots, 'not-found');
    expect(desk.logs.filter((l) => !/Failed to load resource/.test(l))).toEqual([]);
  });
});
