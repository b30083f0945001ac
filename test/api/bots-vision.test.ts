import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturesDir, json, startServer, tempDir, type TestServer } from '../helpers/app.js';
import { startChatServer, type ChatProtocolServer } from '../helpers/chat-servers.js';
import { pngPixelBomb } from '../helpers/hostile-files.js';

// Vision chats on a real scan (the beamer slide of the fixtures, rendered to PNG by pdftoppm): the image is
// read by the pool's OCR path and cited as "image 1"; a multimodal remote provider of either protocol also
// receives the image bytes themselves.

let server: TestServer;
let openai: ChatProtocolServer;
let ollama: ChatProtocolServer;
let root = '';
let png: Buffer;
const hostOf = (url: string) => new URL(url).host;

beforeAll(async () => {
  root = tempDir('lectern-vision-');
  execFileSync('pdftoppm', ['-r', '100', '-png', '-singlefile', join(fixturesDir, 'scanned', 'scan05-beamer-slide4.pdf'), join(root, 'slide')]);
  png = readFileSync(join(root, 'slide.png'));
  [openai, ollama] = await Promise.all([startChatServer('openai', { model: 'vision-model' }), startChatServer('ollama', { model: 'vision-model' })]);
  server = await startServer({ settings: { document_roots: [root], allowed_private_hosts: [hostOf(openai.url), hostOf(ollama.url)] } });
});
afterAll(async () => {
  await server?.close();
  await Promise.all([openai?.close(), ollama?.close()]);
});

const newBot = async (llm: Record<string, unknown>) => (await json(await server.call('POST', '/bots', { json: { llm } }))).bot_id as string;
const visionChat = async (botId: string) => (await json(await server.call('POST', `/bots/${botId}/vision-chats`))).vision_chat_id as string;

describe('vision chats', () => {
  it('reads a scanned slide by path, answers from it and cites it as image 1; the history lists it', async () => {
    const botId = await newBot({ provider: 'extractive' });
    const chatId = await visionChat(botId);
    const res = await server.call('POST', `/bots/${botId}/vision-chats/${chatId}`, { json: { query: 'What are the rows of the genotype matrix?', image_paths: [join(root, 'slide.png')] } });
    expect(res.status).toBe(200);
    const m = await json(res);
    expect(m.response).toMatch(/taxa|individuals/i);
    expect(m.response).toBe(m.answer);
    expect(m.citations[0]).toMatchObject({ source: 'image 1', chunk_id: 'image-1' });
    expect(m.images[0]).toMatchObject({ name: 'slide.png', media_type: 'image/png', bytes: png.length });
    expect(m.images[0].text_chars).toBeGreaterThan(100);
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
    const byUri = await server.call('POST', `/bots/${botId}/vision-chats/${chatId}`, { json: { query: 'What are the outputs?', images: [uri] } });
    expect(byUri.status).toBe(200);
    expect((await json(byUri)).response).toMatch(/haplotype/i);
    const form = new FormData();
    form.append('query', 'What are the inputs?');
    form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'slide.png');
    const byFile = await server.call('POST', `/bots/${botId}/vision-chats/${chatId}`, { body: form });
    expect(byFile.status).toBe(200);
    expect((await json(byFile)).images[0]).toMatchObject({ media_type: 'image/png' });
    const notImage = await server.call('POST', `/bots/${botId}/vision-chats/${chatId}`, { json: { query: 'x', images: [`data:image/png;base64,${Buffer.from('%PDF-1.4 not an image').toString('base64')}`] } });
    expect(notImage.status).toBe(415);
    const outside = await server.call('POST', `/bots/${botId}/vision-chats/${chatId}`, { json: { query: 'x', image_paths: ['/etc/hostname'] } });
    expect(outside.status).toBe(403);
    // A pixel bomb (20000 x 20000, a few hundred KB) is refused by its header before any decoder runs.
    const bomb = await server.call('POST', `/bots/${botId}/vision-chats/${chatId}`, { json: { query: 'x', images: [`data:image/png;base64,${pngPixelBomb(20000, 20000).toString('base64')}`] } });
    expect(bomb.status).toBe(422);
    expect((await json(bomb)).error.code).toBe('IMAGE_TOO_LARGE');
    const many = await server.call('POST', `/bots/${botId}/vision-chats/${chatId}`, { json: { query: 'x', images: Array(9).fill(uri) } });
    expect(many.status).toBe(400);
    expect((await server.call('POST', `/bots/${botId}/vision-chats/${chatId}`, { json: { query: 'x' } })).status).toBe(400);
  });

  it('shows the image itself to multimodal remote providers: OpenAI image_url parts and Ollama images', async () => {
    for (const [provider, remote] of [['openai', openai], ['ollama', ollama]] as const) {
      const botId = await newBot({ provider, model: 'vision-model', base_url: provider === 'openai' ? `${remote.url}/v1` : remote.url });
      const chatId = await visionChat(botId);
      const res = await server.call('POST', `/bots/${botId}/vision-chats/${chatId}`, { json: { query: 'What does the slide say?', image_paths: [join(root, 'slide.png')] } });
      expect(res.status, provider).toBe(200);
      const last = remote.requests.at(-1)!.body.messages.at(-1);
      if (provider === 'openai') {
        const image = last.content.find((p: { type: string }) => p.type === 'image_url');
        expect(image.image_url.url).toBe(`data:image/png;base64,${png.toString('base64')}`);
        expect(last.content.find((p: { type: string }) => p.type === 'text').text).toContain('What does the slide say?');
      } else {
        expect(last.images).toEqual([png.toString('base64')]);
        expect(last.content).toContain('What does the slide say?');
      }
    }
  });
});
