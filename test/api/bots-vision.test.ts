import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startServer, tempDir, type TestServer } from '../helpers/app.js';
import { installChatModel, SMOLLM2 } from '../helpers/chat-flow.js';
import { startChatServer } from '../helpers/chat-servers.js';
import { installTestModel, TEST_MODEL, waitForIngest } from '../helpers/embed-flow.js';
import { writeSlidePng } from '../helpers/fixture-slide.js';
import { pngPixelBomb } from '../helpers/hostile-files.js';
import type { ProviderServer } from '../helpers/provider-request.js';
import { startSearxServer, type SearxServer } from '../helpers/searx-server.js';

// Vision chats on a real scan (the beamer slide of the fixtures, rendered to PNG by pdftoppm): the image is
// read by the pool's OCR path and cited as "image 1"; a multimodal remote provider of either protocol also
// receives the image bytes themselves. On a bot with a document, the slide's text joins the retrieved chunks
// as a source, for the extractive reader, a remote model and the local one (SmolLM2 under llama.cpp); web
// results (a local SearxNG-protocol server) are listed apart.

let server: TestServer;
let openai: ProviderServer;
let ollama: ProviderServer;
let searx: SearxServer;
let root = '';
let png: Buffer;
const hostOf = (url: string) => new URL(url).host;

beforeAll(async () => {
  root = tempDir('lectern-vision-');
  png = writeSlidePng(root);
  // A bot document on the slide's subject that the slide itself does not hold: the phasing programs.
  writeFileSync(join(root, 'haplotyping.md'), PHASING_MD);
  const dataDir = tempDir();
  [openai, ollama, searx] = await Promise.all([
    startChatServer('openai', { model: 'vision-model' }),
    startChatServer('ollama', { model: 'vision-model' }),
    startSearxServer(),
    installTestModel(dataDir),
    installChatModel(dataDir, SMOLLM2),
  ]);
  server = await startServer({
    dataDir,
    settings: {
      document_roots: [root],
      embedding_model: TEST_MODEL,
      chat_model: SMOLLM2,
      web_search_url: searx.url,
      allowed_private_hosts: [hostOf(openai.url), hostOf(ollama.url), hostOf(searx.url)],
    },
  });
});
afterAll(async () => {
  await server?.close();
  await Promise.all([openai?.close(), ollama?.close(), searx?.close()]);
});

const PHASING_MD =
  '# Phasing software\n\nBeagle and SHAPEIT are programs that phase the genotype matrix into haplotypes, one chromosome at a time.\n';

const newBot = async (llm: Record<string, unknown>) =>
  (await json(await server.call('POST', '/bots', { json: { llm } }))).bot_id as string;
const visionChat = async (botId: string) =>
  (await json(await server.call('POST', `/bots/${botId}/vision-chats`))).vision_chat_id as string;
/** A bot holding haplotyping.md, searchable. */
const botWithDocument = async (llm: Record<string, unknown>) => {
  const botId = await newBot(llm);
  const added = await json(
    await server.call('POST', `/bots/${botId}/documents/path`, { json: { path: join(root, 'haplotyping.md') } }),
  );
  expect((await waitForIngest(server, added.job_id)).ingest_status).toBe('success');
  return { botId, jobId: added.job_id as string };
};
const askVision = (botId: string, chatId: string, body: Record<string, unknown>) =>
  server.call('POST', `/bots/${botId}/vision-chats/${chatId}`, { json: body });
const BOTH = 'What are the rows of the genotype matrix, and which programs phase it?';

describe('vision chats', () => {
  it('reads a scanned slide by path, answers from it and cites it as image 1; the history lists it', async () => {
    const botId = await newBot({ provider: 'extractive' });
    const chatId = await visionChat(botId);
    const res = await server.call('POST', `/bots/${botId}/vision-chats/${chatId}`, {
      json: { query: 'What are the rows of the genotype matrix?', image_paths: [join(root, 'slide.png')] },
    });
    expect(res.status).toBe(200);
    const m = await json(res);
    expect(m.response).toMatch(/taxa|individuals/i);
    expect(m.response).toBe(m.answer);
    expect(m.citations[0]).toMatchObject({ source: 'image 1', chunk_id: 'image-1' });
    expect(m.images[0]).toMatchObject({ name: 'slide.png', media_type: 'image/png', bytes: png.length });
    expect(m.images[0].text_chars).toBeGreaterThan(100);
    // No web search asked: none made, none listed.
    expect(m.web_sources).toEqual([]);
    const history = await json(await server.call('GET', `/chats/${chatId}`));
    expect(history.messages[0]).toMatchObject({ message_id: m.message_id, response: m.response });
    expect(await json(await server.call('GET', `/bots/${botId}/chats`))).toContain(chatId);
    // A vision chat is not a text chat, and the other way round.
    expect((await server.call('POST', `/bots/${botId}/chats/${chatId}`, { json: { query: 'hi' } })).status).toBe(404);
  });

  it('takes data URIs and multipart files; refuses what is not an image, paths outside the roots and too many images', async () => {
    const botId = await newBot({ provider: 'extractive' });
    const chatId = await visionChat(botId);
    const uri = `data:image/png;base64,${png.toString('base64')}`;
    const byUri = await server.call('POST', `/bots/${botId}/vision-chats/${chatId}`, {
      json: { query: 'What are the outputs?', images: [uri] },
    });
    expect(byUri.status).toBe(200);
    expect((await json(byUri)).response).toMatch(/haplotype/i);
    const form = new FormData();
    form.append('query', 'What are the inputs?');
    form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'slide.png');
    const byFile = await server.call('POST', `/bots/${botId}/vision-chats/${chatId}`, { body: form });
    expect(byFile.status).toBe(200);
    expect((await json(byFile)).images[0]).toMatchObject({ media_type: 'image/png' });
    const notImage = await server.call('POST', `/bots/${botId}/vision-chats/${chatId}`, {
      json: {
        query: 'x',
        images: [`data:image/png;base64,${Buffer.from('%PDF-1.4 not an image').toString('base64')}`],
      },
    });
    expect(notImage.status).toBe(415);
    const outside = await server.call('POST', `/bots/${botId}/vision-chats/${chatId}`, {
      json: { query: 'x', image_paths: ['/etc/hostname'] },
    });
    expect(outside.status).toBe(403);
    // A pixel bomb (20000 x 20000, a few hundred KB) is refused by its header before any decoder runs.
    const bomb = await server.call('POST', `/bots/${botId}/vision-chats/${chatId}`, {
      json: { query: 'x', images: [`data:image/png;base64,${pngPixelBomb(20000, 20000).toString('base64')}`] },
    });
    expect(bomb.status).toBe(422);
    expect((await json(bomb)).error.code).toBe('IMAGE_TOO_LARGE');
    const many = await server.call('POST', `/bots/${botId}/vision-chats/${chatId}`, {
      json: { query: 'x', images: Array(9).fill(uri) },
    });
    expect(many.status).toBe(400);
    expect((await server.call('POST', `/bots/${botId}/vision-chats/${chatId}`, { json: { query: 'x' } })).status).toBe(
      400,
    );
  });

  it('shows the image itself to multimodal remote providers: OpenAI image_url parts and Ollama images', async () => {
    for (const [provider, remote] of [
      ['openai', openai],
      ['ollama', ollama],
    ] as const) {
      const botId = await newBot({
        provider,
        model: 'vision-model',
        base_url: provider === 'openai' ? `${remote.url}/v1` : remote.url,
      });
      const chatId = await visionChat(botId);
      const res = await server.call('POST', `/bots/${botId}/vision-chats/${chatId}`, {
        json: { query: 'What does the slide say?', image_paths: [join(root, 'slide.png')] },
      });
      expect(res.status, provider).toBe(200);
      const last = remote.requests.at(-1)!.body.messages.at(-1);
      if (provider === 'openai') {
        const image = last.content.find((p: { type: string }) => p.type === 'image_url');
        expect(image.image_url.url).toBe(`data:image/png;base64,${png.toString('base64')}`);
        expect(last.content.find((p: { type: string }) => p.type === 'text').text).toContain(
          'What does the slide say?',
        );
      } else {
        expect(last.images).toEqual([png.toString('base64')]);
        expect(last.content).toContain('What does the slide say?');
      }
    }
  });

  it('searches the web for a vision question when asked (JSON or multipart), listing the results in web_sources and citing none of them', async () => {
    const botId = await newBot({ provider: 'extractive' });
    const chatId = await visionChat(botId);
    const query = 'How much heat does haplotyping the genotype matrix take?';
    const asked = searx.requests.length;
    const res = await askVision(botId, chatId, { query, image_paths: [join(root, 'slide.png')], web_search: true });
    expect(res.status).toBe(200);
    const m = await json(res);
    expect(searx.requests.length).toBe(asked + 1);
    expect(searx.requests.at(-1)?.get('q')).toBe(query);
    // The engines' duplicate and the results without a web URL are dropped, as for text chats.
    expect(m.web_sources[0]).toEqual({
      url: 'https://example.org/heat',
      title: 'Heat - Example',
      snippet: 'Heat is energy in transfer.',
    });
    expect(m.web_sources.map((w: { url: string }) => w.url)).not.toContain('javascript:alert(1)');
    expect(new Set(m.web_sources.map((w: { url: string }) => w.url)).size).toBe(m.web_sources.length);
    // Citations name the image (and chunks), never a web result.
    expect(m.citations.length).toBeGreaterThan(0);
    for (const c of m.citations) expect(c.source).toBe('image 1');
    const history = await json(await server.call('GET', `/chats/${chatId}`));
    expect(history.messages[0].web_sources).toEqual(m.web_sources);

    const form = new FormData();
    form.append('query', 'Is heat part of the haplotype matrix?');
    form.append('web_search', 'true');
    form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'slide.png');
    const byFile = await server.call('POST', `/bots/${botId}/vision-chats/${chatId}`, { body: form });
    expect(byFile.status).toBe(200);
    expect((await json(byFile)).web_sources[0]).toMatchObject({ url: 'https://example.org/heat' });
    expect(searx.requests.at(-1)?.get('q')).toBe('Is heat part of the haplotype matrix?');
  });

  it("answers from the image beside the bot's own retrieved chunks, citing both the document and image 1", async () => {
    const { botId, jobId } = await botWithDocument({ provider: 'extractive' });
    const chatId = await visionChat(botId);
    const res = await askVision(botId, chatId, { query: BOTH, image_paths: [join(root, 'slide.png')] });
    expect(res.status).toBe(200);
    const m = await json(res);
    // One sentence quoted from each: the programs from the document, the rows from the slide.
    expect(m.response).toContain('Beagle and SHAPEIT');
    expect(m.response).toMatch(/rows of the matrix are taxa/i);
    const doc = m.citations.find((c: { source: string }) => c.source === 'haplotyping.md');
    expect(doc).toMatchObject({ job_id: jobId, page_numbers: [1] });
    expect(doc.quote).toContain('Beagle');
    const image = m.citations.find((c: { source: string }) => c.source === 'image 1');
    expect(image).toMatchObject({ chunk_id: 'image-1', job_id: '' });
    expect(image.quote).toMatch(/taxa/i);
  });

  it('gives a remote model the OCR text as a source beside the retrieved chunks, and the image itself', async () => {
    const { botId } = await botWithDocument({
      provider: 'openai',
      model: 'vision-model',
      base_url: `${openai.url}/v1`,
    });
    const chatId = await visionChat(botId);
    const res = await askVision(botId, chatId, { query: BOTH, image_paths: [join(root, 'slide.png')] });
    expect(res.status).toBe(200);
    const last = openai.requests.at(-1)!.body.messages.at(-1);
    const text = last.content.find((p: { type: string }) => p.type === 'text').text as string;
    // The document's chunk as S1 and the slide's text as I1, each on its own source line, then the question.
    expect(text).toMatch(/^\[S1\] .*Beagle and SHAPEIT/m);
    expect(text).toMatch(/^\[I1\] .*rows of the matrix are taxa/im);
    expect(text).toContain(`Question: ${BOTH}`);
    expect(last.content.find((p: { type: string }) => p.type === 'image_url').image_url.url).toBe(
      `data:image/png;base64,${png.toString('base64')}`,
    );
  });

  it("answers a vision question with the local model (SmolLM2), the image's text in its prompt beside the document", async () => {
    const { botId } = await botWithDocument({ provider: 'local', model: SMOLLM2 });
    const chatId = await visionChat(botId);
    const res = await askVision(botId, chatId, { query: BOTH, image_paths: [join(root, 'slide.png')] });
    expect(res.status).toBe(200);
    const m = await json(res);
    expect(m.not_found).toBe(false);
    expect(m.response.trim().length).toBeGreaterThan(0);
    expect(m.images[0].text_chars).toBeGreaterThan(100);
    // At temperature 0 SmolLM2 answers from the slide's line on the rows and the document's sentence on
    // phasing (shown only the sentences that bear on the question, it no longer names the programs); it
    // writes no tag, so both are cited by the words the answer shares with them.
    expect(m.citations.map((c: { source: string }) => c.source).sort()).toEqual(['haplotyping.md', 'image 1']);
    expect(m.response).toMatch(/rows of the genotype matrix/i);
    // The same question in a text chat of the same bot: the same chunk, no image. The vision prompt is
    // longer by the slide's lines that bear on the question, so the model was given them.
    const { chat_id } = await json(await server.call('POST', `/bots/${botId}/chats`));
    const plain = await json(await server.call('POST', `/bots/${botId}/chats/${chat_id}`, { json: { query: BOTH } }));
    expect(plain.not_found).toBe(false);
    expect(m.usage.prompt_tokens - plain.usage.prompt_tokens).toBeGreaterThan(40);
  });
});
