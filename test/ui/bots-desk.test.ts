import { afterAll, describe, expect, it } from 'vitest';
import { enc, json, tempDir } from '../helpers/app.js';
import { installChatModel, SMOLLM2 } from '../helpers/chat-flow.js';
import { startServerWithModel, TOPICS_MD } from '../helpers/embed-flow.js';
import { writeSlidePng } from '../helpers/fixture-slide.js';
import { makeStructuredPdf } from '../helpers/make-pdf.js';
import { startMediaWikiServer, type MediaWikiServer } from '../helpers/mediawiki-server.js';
import { startWebPagesServer, type WebPagesServer } from '../helpers/web-pages-server.js';
import { sendQuestion } from './helpers/chat-pane.js';
import { useDesk } from './helpers/desk.js';
import { selectedBlock } from './helpers/review.js';
import { screenshotDir, shot } from './helpers/screens.js';

// Bots in the desk, in Debian's chromium against the real server: real MiniLM embeddings, the extractive
// provider (real code, no model) for answers that must be exact, the real OCR path for a vision question, and
// SmolLM2 under llama.cpp for one answer streamed into the page token by token.

const shots = screenshotDir('bots-desk');
const LONG = { timeout: 60_000 };
let web: WebPagesServer;
let wiki: MediaWikiServer;
let botId = '';
let slidePng: Buffer;
const hostOf = (url: string) => new URL(url).host;
const get = async (path: string) => json(await desk.server.call('GET', path));
const desk = useDesk({
  start: async () => {
    slidePng = writeSlidePng(tempDir('lectern-bots-ui-'));
    const dataDir = tempDir();
    [web, wiki] = await Promise.all([
      startWebPagesServer(),
      startMediaWikiServer(),
      installChatModel(dataDir, SMOLLM2),
    ]);
    return startServerWithModel(
      {
        chat_model: SMOLLM2,
        allowed_private_hosts: [hostOf(web.url), hostOf(wiki.apiUrl)],
        encyclopedia_url: wiki.apiUrl,
      },
      dataDir,
    );
  },
});
afterAll(async () => {
  await Promise.all([web?.close(), wiki?.close()]);
});

/** The chat the pane has open (selected in its list of conversations), of this kind. */
async function chatIdOf(kind: 'text' | 'vision'): Promise<string> {
  const open = desk.page.locator(`.bot-chat .conversation.selected[data-kind=${kind}]`);
  await open.waitFor();
  return (await open.getAttribute('data-conversation')) ?? '';
}

/** Asks in the chat pane and waits for the turn to end; returns the turn's locator. */
async function ask(question: string) {
  const turn = await sendQuestion(desk.page, '.bot-chat', question);
  await expect.poll(() => turn.getAttribute('data-status'), LONG).toMatch(/^(complete|failed|cancelled)$/);
  return turn;
}

describe('bots in the desk', () => {
  it('lists bots beside the library, creates one from the form and deletes another only once confirmed', async () => {
    await desk.page.click('nav.sections a[href="#/bots"]');
    await desk.page.waitForSelector('section.bots[data-loaded=true]');
    expect(await desk.page.textContent('table.bot-list tbody')).toContain('No bots yet');
    await desk.page.fill('input[name=bot-name]', 'Science tutor');
    await desk.page.fill('textarea[name=bot-prompt]', 'You answer from the course documents, briefly.');
    await expect
      .poll(() => desk.page.locator(`select[name=bot-model] option[value="local:${SMOLLM2}"]`).count())
      .toBe(1);
    await desk.page.selectOption('select[name=bot-model]', 'extractive:');
    await desk.page.click('form.bot-form button[type=submit]');
    await desk.page.waitForURL(/#\/bots\/[^/]+$/);
    botId = decodeURIComponent(new URL(desk.page.url()).hash.split('/')[2] ?? '');
    expect(await get(`/bots/${botId}`)).toMatchObject({
      name: 'Science tutor',
      prompt_template: 'You answer from the course documents, briefly.',
      llm: { provider: 'extractive' },
    });
    await expect.poll(() => desk.page.textContent('section.bot h1')).toBe('Science tutor');

    const scratch = (
      await json(
        await desk.server.call('POST', '/bots', { json: { name: 'Scratch', llm: { provider: 'extractive' } } }),
      )
    ).bot_id as string;
    await desk.page.click('nav.sections a[href="#/bots"]');
    await desk.page.waitForSelector(`tr[data-bot="${scratch}"]`);
    expect(await desk.page.locator('tr[data-bot]').count()).toBe(2);
    expect(await desk.page.textContent(`tr[data-bot="${botId}"]`)).toContain('extractive');
    await shot(desk.page, shots, '1-bots');
    await desk.page.click(`tr[data-bot="${scratch}"] button.danger`);
    await desk.page.waitForSelector('dialog[open]');
    expect(await desk.page.textContent('dialog[open]')).toContain('Scratch');
    await shot(desk.page, shots, '2-delete-confirm');
    // Every DELETE the page sends: right after "No" the server may not have seen one sent on it yet.
    const deletes: string[] = [];
    desk.page.on('request', (r) => void (r.method() === 'DELETE' && deletes.push(r.url())));
    await desk.page.click('dialog button[data-value=false]');
    expect((await desk.server.call('GET', `/bots/${scratch}`)).status).toBe(200);
    expect(await desk.page.locator(`tr[data-bot="${scratch}"]`).count()).toBe(1);
    await desk.page.click(`tr[data-bot="${scratch}"] button.danger`);
    await desk.page.click('dialog button[data-value=true]');
    await desk.page.waitForSelector(`tr[data-bot="${scratch}"]`, { state: 'detached' });
    expect((await desk.server.call('GET', `/bots/${scratch}`)).status).toBe(404);
    expect(deletes).toEqual([`${desk.server.url}/bots/${scratch}`]);
    expect(await desk.page.locator(`tr[data-bot="${botId}"]`).count()).toBe(1);
  });

  it('adds documents by picker, drop, link and encyclopedia search, follows their progress, and opens each in the desk', async () => {
    await desk.page.click(`tr[data-bot="${botId}"] a.bot-name`);
    await desk.page.waitForSelector('section.bot-documents');
    // Every state a document passes is recorded as the list redraws, to show the list follows them live.
    await desk.page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seenIngest: string[] }).seenIngest = seen;
      const record = () =>
        document
          .querySelectorAll<HTMLElement>('.bot-docs tr[data-job]')
          .forEach((r) => seen.push(`${r.dataset.job}:${r.dataset.ingest}`));
      new MutationObserver(record).observe(document.querySelector('.bot-docs tbody')!, { childList: true });
    });
    await desk.page.setInputFiles('.bot-documents input[type=file]', {
      name: 'quarterly-report.pdf',
      mimeType: 'application/pdf',
      buffer: await makeStructuredPdf(),
    });
    await expect.poll(() => desk.page.locator('.bot-documents .upload-log li.ok').count(), LONG).toBe(1);
    // A file dropped while "hold for review" is ticked waits for a person.
    await desk.page.check('.bot-documents input.hold-review');
    await desk.page.evaluate((md) => {
      const dt = new DataTransfer();
      dt.items.add(new File([md], 'topics.md', { type: 'text/markdown' }));
      const target = document.querySelector('section.bot-documents')!;
      for (const type of ['dragenter', 'dragover', 'drop'])
        target.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, TOPICS_MD);
    await expect.poll(() => desk.page.locator('.bot-documents .upload-log li.ok').count(), LONG).toBe(2);
    await desk.page.uncheck('.bot-documents input.hold-review');
    await desk.page.fill('.bot-documents input[name=links]', `${web.url}/articles/heat-transfer`);
    await desk.page.click('.bot-documents button.add-links');
    await expect.poll(() => desk.page.locator('.bot-documents .upload-log li.ok').count(), LONG).toBe(3);
    await desk.page.fill('.bot-documents input[name=encyclopedia]', 'heat transfer');
    await desk.page.fill('.bot-documents input[name=max-pages]', '1');
    await desk.page.click('.bot-documents button.add-articles');
    await expect.poll(() => desk.page.locator('.bot-documents .upload-log li.ok').count(), LONG).toBe(4);
    const rows = desk.page.locator('.bot-docs tr[data-job]');
    await expect.poll(() => rows.count(), LONG).toBe(4);
    // Three become searchable on their own; the held one stops at review.
    await expect.poll(() => desk.page.locator('.bot-docs tr[data-ingest=success]').count(), LONG).toBe(3);
    const held = desk.page.locator('.bot-docs tr[data-job]', { hasText: 'topics.md' });
    await expect.poll(() => held.getAttribute('data-status'), LONG).toBe('ready_for_review');
    expect(await held.textContent()).toContain('waiting for review');
    await expect.poll(() => desk.page.textContent('.bot-documents > p.muted')).toBe('3 of 4 document(s) searchable');
    const bot = await get(`/bots/${botId}`);
    expect(bot.document_list.map((d: { source: { kind: string } }) => d.source.kind).sort()).toEqual([
      'encyclopedia',
      'link',
      'upload',
      'upload',
    ]);
    const text = await desk.page.textContent('.bot-docs');
    expect(text).toContain(`${web.url}/articles/heat-transfer`);
    expect(text).toContain('encyclopedia: ');
    await shot(desk.page, shots, '3-bot-documents');

    // A document opens in the review desk: the PDF with its pages.
    const pdf = desk.page.locator('.bot-docs tr[data-job]', { hasText: 'quarterly-report.pdf' });
    const pdfJob = (await pdf.getAttribute('data-job')) ?? '';
    // The list followed the PDF from waiting or reading to searchable without a reload.
    const seen = await desk.page.evaluate(() => (window as unknown as { seenIngest: string[] }).seenIngest);
    expect(seen.some((s) => s === `${pdfJob}:pending` || s === `${pdfJob}:processing`)).toBe(true);
    expect(seen).toContain(`${pdfJob}:success`);
    await pdf.locator('a.doc-name').click();
    await desk.page.waitForSelector('.review[data-loaded=true]');
    expect(desk.page.url()).toContain(`#/jobs/${pdfJob}/review`);
    expect(await desk.page.textContent('.page-caption')).toMatch(/1/);
    await shot(desk.page, shots, '4-document-review');
    await desk.page.goBack();
    await desk.page.waitForSelector('section.bot-documents');
    // The held one too, for the reviewer to finalize.
    await held.locator('a.doc-name').click();
    await desk.page.waitForSelector('.review[data-loaded=true]');
    expect(desk.page.url()).toContain(
      `#/jobs/${(await get(`/bots/${botId}`)).document_list.find((d: { source_file: string }) => d.source_file === 'topics.md').job_id}/review`,
    );
    await desk.page.goBack();
  });

  it('answers with citations that open the cited page with the cited block highlighted', async () => {
    await desk.page.waitForSelector('.bot-chat[data-ready=true]');
    const turn = await ask('How do revenue and costs develop over the quarters?');
    expect(await turn.getAttribute('data-status')).toBe('complete');
    const chatId = await chatIdOf('text');
    const stored = (await get(`/chats/${chatId}`)).messages[0];
    expect(await turn.getAttribute('data-message')).toBe(stored.message_id);
    expect(stored.citations.length).toBeGreaterThan(0);
    expect(await turn.locator('.answer').textContent()).toBe(stored.answer);
    expect(stored.answer).toMatch(/Revenue grows/);
    const cited = stored.citations[0];
    expect(cited.source).toBe('quarterly-report.pdf');
    const link = turn.locator('.citation a.citation-link').first();
    expect(await link.textContent()).toContain(`quarterly-report.pdf · p. ${cited.page_numbers.join(', ')}`);
    // The link names the chunk's first block once the job's chunks are read.
    await expect.poll(() => link.getAttribute('data-block')).not.toBeNull();
    const blockId = (await link.getAttribute('data-block')) ?? '';
    const chunks = (await get(`/jobs/${cited.job_id}/chunks?limit=500`)) as { chunk_id: string; block_ids: string[] }[];
    expect(blockId).toBe(chunks.find((c) => c.chunk_id === cited.chunk_id)?.block_ids[0]);
    await shot(desk.page, shots, '5-chat-citations');
    await link.click();
    await desk.page.waitForSelector('.review[data-loaded=true]');
    expect(desk.page.url()).toContain(`#/jobs/${cited.job_id}/review`);
    await expect.poll(() => selectedBlock(desk.page)).toBe(blockId);
    // The cited page is shown, with the block's box outlined on it.
    const block = await get(`/jobs/${cited.job_id}/blocks/${blockId}`);
    expect(cited.page_numbers).toContain(block.page);
    expect(await desk.page.textContent('.page-caption')).toContain(String(block.page));
    expect(await desk.page.locator(`.page-sheet .box.selected[data-block="${blockId}"]`).count()).toBe(1);
    await shot(desk.page, shots, '6-citation-in-desk');
    // Back on the bot, the conversation is as it was.
    await desk.page.goBack();
    await desk.page.waitForSelector('.bot-chat[data-ready=true]');
    await expect
      .poll(() => desk.page.locator(`.bot-chat .turn[data-message="${stored.message_id}"] .citation`).count())
      .toBe(stored.citations.length);
  });

  it('asks about images dropped or pasted into the chat, read by OCR and cited as image 1', async () => {
    const png = slidePng.toString('base64');
    const put = (how: 'drop' | 'paste', name: string, type: string, base64: string) =>
      desk.page.evaluate(
        ([how, name, type, base64]) => {
          const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
          const dt = new DataTransfer();
          dt.items.add(new File([bytes], name, { type }));
          if (how === 'paste')
            document
              .querySelector('.bot-chat textarea')!
              .dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
          else
            for (const t of ['dragenter', 'dragover', 'drop'])
              document
                .querySelector('section.bot-chat')!
                .dispatchEvent(new DragEvent(t, { dataTransfer: dt, bubbles: true, cancelable: true }));
        },
        [how, name, type, base64] as const,
      );
    // A GIF is refused before anything is sent; a dropped PNG waits in the tray and can be taken out again.
    await put('drop', 'anim.gif', 'image/gif', Buffer.from('GIF89a').toString('base64'));
    await expect.poll(() => desk.page.textContent('.bot-chat .chat-notice')).toContain('only PNG, JPEG, WebP and TIFF');
    await put('drop', 'slide.png', 'image/png', png);
    await desk.page.waitForSelector('.image-tray figure[data-name="slide.png"]');
    await desk.page.click('.image-tray button.remove-image');
    await desk.page.waitForSelector('.image-tray', { state: 'hidden' });
    await put('paste', 'slide.png', 'image/png', png);
    await desk.page.waitForSelector('.image-tray figure[data-name="slide.png"] img');
    await desk.page.fill('.bot-chat textarea[name=question]', 'What are the rows of the genotype matrix?');
    await shot(desk.page, shots, '7-vision-tray');
    const sent = desk.requests.length;
    const turn = await ask('What are the rows of the genotype matrix?');
    expect(await turn.getAttribute('data-status')).toBe('complete');
    expect(desk.requests.slice(sent).some((u) => /\/vision-chats\/[^/]+$/.test(u))).toBe(true);
    // The server keeps vision chats apart from text ones: the question started a conversation of its own, and the panel says so.
    expect(await desk.page.textContent('.bot-chat .chat-notice')).toContain('a new one is started');
    expect(await desk.page.locator('.bot-chat .conversation').count()).toBe(2);
    expect(await turn.locator('.answer').textContent()).toMatch(/taxa|individuals/i);
    expect(await turn.locator('.turn-images img').count()).toBe(1);
    // The image is cited as itself: no document to open.
    expect(await turn.locator('.citation span.citation-link').first().textContent()).toContain('image 1');
    const vision = await get(`/chats/${await chatIdOf('vision')}`);
    expect(vision.messages[0]).toMatchObject({
      question: 'What are the rows of the genotype matrix?',
      images: [{ media_type: 'image/png', bytes: slidePng.length }],
    });
    expect(await desk.page.locator('.image-tray').isHidden()).toBe(true);
    await shot(desk.page, shots, '8-vision-answer');
  });

  it('rates answers, and "learn from chats" opens the review job with the liked answer and without the disliked one', async () => {
    // The text chat, from the list of conversations (the vision question has its own).
    await desk.page.click('.bot-chat .conversation[data-kind=text] .conversation-open');
    const liked = desk.page.locator('.bot-chat .turn').first();
    await expect
      .poll(() => liked.locator('.question').textContent())
      .toBe('How do revenue and costs develop over the quarters?');
    await liked.locator('button.thumb-up').click();
    await expect.poll(() => liked.locator('.feedback').getAttribute('data-rating')).toBe('up');
    expect(await liked.locator('button.thumb-up').getAttribute('aria-pressed')).toBe('true');
    const disliked = await ask('What is the scope of the review?');
    expect(await disliked.getAttribute('data-status')).toBe('complete');
    await disliked.locator('button.thumb-down').click();
    await expect.poll(() => disliked.locator('.feedback').getAttribute('data-rating')).toBe('down');
    await shot(desk.page, shots, '9-rated');
    await desk.page.click('section.bot button.learn');
    await desk.page.waitForURL(/#\/jobs\/[^/]+\/review$/, LONG);
    await desk.page.waitForSelector('.review[data-loaded=true]');
    const jobId = decodeURIComponent(new URL(desk.page.url()).hash.split('/')[2] ?? '');
    const job = await get(`/jobs/${jobId}`);
    expect(job).toMatchObject({ status: 'ready_for_review', bot_id: botId, source: { kind: 'chat_training' } });
    const blocks = (await get(`/jobs/${jobId}/blocks?limit=500`)).map((b: { text: string }) => b.text).join('\n');
    expect(blocks).toContain('How do revenue and costs develop over the quarters?');
    expect(blocks).not.toContain('What is the scope of the review?');
    await shot(desk.page, shots, '10-learn-from-chats');
  });

  it("streams a local model's answer into the page as it is written", async () => {
    const local = (
      await json(
        await desk.server.call('POST', '/bots', {
          json: { name: 'Tutor (SmolLM2)', prompt_template: 'You are a science tutor.' },
        }),
      )
    ).bot_id as string;
    const form = new FormData();
    form.append('file', new Blob([enc(TOPICS_MD) as Uint8Array<ArrayBuffer>]), 'topics.md');
    const added = await json(await desk.server.call('POST', `/bots/${local}/documents/upload`, { body: form }));
    await desk.page.goto(`${desk.server.url}/#/bots/${local}`);
    await desk.page.waitForSelector('.bot-chat[data-ready=true]');
    await expect
      .poll(() => desk.page.locator(`.bot-docs tr[data-job="${added.job_id}"]`).getAttribute('data-ingest'), LONG)
      .toBe('success');
    // Every change of the answer while it streams, recorded in the page as it happens.
    await desk.page.evaluate(() => {
      const lengths: number[] = [];
      (window as unknown as { streamed: number[] }).streamed = lengths;
      new MutationObserver(() => {
        const turn = document.querySelector<HTMLElement>('.bot-chat .turn');
        if (turn?.dataset.status === 'streaming') lengths.push(turn.querySelector('.answer')?.textContent?.length ?? 0);
      }).observe(document.querySelector('.bot-chat .chat-log')!, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
      });
    });
    const turn = await ask('What does chlorophyll capture?');
    expect(await turn.getAttribute('data-status')).toBe('complete');
    const streamed = await desk.page.evaluate(() => (window as unknown as { streamed: number[] }).streamed);
    expect(new Set(streamed.filter((n) => n > 0)).size).toBeGreaterThan(1);
    const stored = (await get(`/chats/${await chatIdOf('text')}`)).messages[0];
    expect(stored.not_found).toBe(false);
    expect(await turn.locator('.answer').textContent()).toBe(stored.answer);
    expect(await turn.locator('.citation a.citation-link').first().textContent()).toContain('topics.md');
    await shot(desk.page, shots, '11-streamed-answer');
  });

  it('asked nothing of any other host, and nothing broke in the page', () => {
    const origin = new URL(desk.server.url).origin;
    expect(
      desk.requests.filter((u) => !u.startsWith(origin) && !u.startsWith('blob:') && !u.startsWith('data:')),
    ).toEqual([]);
    expect(desk.logs.filter((l) => /pageerror|Content Security Policy/.test(l))).toEqual([]);
  });
});
