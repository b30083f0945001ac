import type { AppContext, Screen } from '../app-context.js';
import type { BotDetail, Job } from '../api/types.js';
import { h } from '../ui/dom.js';
import { errorText } from '../ui/toast.js';
import { botTransport } from '../chat/bot-transport.js';
import { chatPanel } from '../chat/chat-panel.js';
import { botDocuments } from './bot-documents.js';
import { modelLabel } from './bots-screen.js';

/** How often the training job is read while it is prepared (a short document: a second or two). */
const TRAINING_POLL_MS = 300;
const WORKING = new Set(['queued', 'processing']);

interface Trained {
  message: string;
  job_id: string | null;
  pairs: number;
}

/**
 * "Learn from chats": the bot's answered, not down-rated questions become one review job; it opens in the
 * review desk once it is read (a job still queued has no blocks to show). Nothing reaches the bot before a
 * person finalizes that job.
 */
async function learnFromChats(
  ctx: AppContext,
  botId: string,
  button: HTMLButtonElement,
  status: HTMLElement,
  signal: AbortSignal,
): Promise<void> {
  button.disabled = true;
  try {
    const res = await ctx.api.send<Trained>('POST', `/bots/${encodeURIComponent(botId)}/train-chats`);
    status.textContent = res.message;
    if (!res.job_id) return;
    const path = `/jobs/${encodeURIComponent(res.job_id)}`;
    let job = await ctx.api.get<Job>(path, signal);
    while (WORKING.has(job.status) && !signal.aborted) {
      await new Promise((r) => setTimeout(r, TRAINING_POLL_MS));
      job = await ctx.api.get<Job>(path, signal);
    }
    if (signal.aborted) return;
    if (job.status !== 'ready_for_review')
      status.textContent = `The training job ended ${job.status}: ${job.error?.message ?? ''}`;
    else ctx.navigate(`#${path}/review`);
  } catch (err) {
    if (!signal.aborted) status.textContent = `Could not learn from chats: ${errorText(err)}`;
  } finally {
    button.disabled = false;
  }
}

/** A bot's page: its settings, its documents with their progress and ways to add more, its chat. */
export function botScreen(ctx: AppContext, botId: string): Screen {
  const abort = new AbortController();
  const title = h('h1', {}, 'Bot');
  const model = h('span', { class: 'badge bot-model' });
  const prompt = h('p', { class: 'bot-prompt' });
  const status = h('p', { class: 'muted training-status', 'aria-live': 'polite' });
  const learn = h(
    'button',
    { type: 'button', class: 'learn', title: 'Put the answered questions up for review; the bot learns what you keep' },
    'Learn from chats',
  );
  learn.addEventListener('click', () => void learnFromChats(ctx, botId, learn, status, abort.signal));
  // The documents list reads the bot each time it polls: the header follows it.
  const showBot = (bot: BotDetail) => {
    title.textContent = bot.name || bot.bot_id;
    model.textContent = `answers with ${modelLabel(bot.llm)}`;
    prompt.textContent = bot.prompt_template;
  };
  const documents = botDocuments(ctx, botId, showBot);
  const chat = chatPanel(ctx, botTransport(ctx, botId));
  const element = h(
    'section',
    { class: 'bot', 'aria-label': 'Bot', 'data-bot': botId },
    h(
      'div',
      { class: 'toolbar' },
      h('a', { href: '#/bots', class: 'button' }, '← Bots'),
      title,
      model,
      ctx.caps.trainChats ? learn : null,
    ),
    h('details', { class: 'bot-settings' }, h('summary', {}, 'Instructions'), prompt),
    status,
    h('div', { class: 'bot-body' }, documents.element, chat.element),
  );
  return {
    element,
    dispose() {
      abort.abort();
      documents.dispose();
      chat.dispose();
    },
  };
}
