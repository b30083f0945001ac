import type { AppContext, Screen } from '../app-context.js';
import type { Bot, ListPage } from '../api/types.js';
import { confirmDialog } from '../ui/dialog.js';
import { h } from '../ui/dom.js';
import { when } from '../ui/format.js';
import { errorText, toast } from '../ui/toast.js';
import { botForm } from './bot-form.js';

/** "extractive", "local · smollm2-…", "openai · gpt-4o-mini"; a model left to the server says so. */
export const modelLabel = (llm: Bot['llm']): string =>
  llm.model || llm.provider === 'extractive'
    ? [llm.provider, llm.model].filter(Boolean).join(' · ')
    : `${llm.provider} (server default model)`;

/**
 * The Bots screen, beside the library: every bot with its model and counts, a form to make one, and delete
 * with confirmation (its documents, chats and index go with it). A bot's name opens its page.
 */
export function botsScreen(ctx: AppContext): Screen {
  const { api } = ctx;
  const rows = h('tbody');

  async function remove(bot: Bot): Promise<void> {
    const name = bot.name || bot.bot_id;
    const what = `${name}, its ${bot.documents} document(s), ${bot.chats} chat(s) and its index will be removed for good.`;
    if (!(await confirmDialog('Delete this bot?', what, 'Delete'))) return;
    try {
      await api.send('DELETE', `/bots/${encodeURIComponent(bot.bot_id)}`);
      toast(`Deleted ${name}`);
    } catch (err) {
      toast(`Could not delete ${name}: ${errorText(err)}`, 'error');
    }
    await refresh();
  }

  function row(bot: Bot): HTMLElement {
    const href = `#/bots/${encodeURIComponent(bot.bot_id)}`;
    return h(
      'tr',
      { 'data-bot': bot.bot_id },
      h(
        'td',
        {},
        h('a', { href, class: 'bot-name' }, bot.name || bot.bot_id),
        h('div', { class: 'muted prompt-line' }, bot.prompt_template),
      ),
      h('td', {}, h('span', { class: 'badge' }, modelLabel(bot.llm))),
      h('td', { class: 'num' }, bot.documents),
      h('td', { class: 'num' }, bot.chats),
      h('td', { class: 'muted' }, when(bot.created_at)),
      h(
        'td',
        { class: 'actions' },
        h('a', { href, class: 'button' }, 'Open'),
        h('button', { type: 'button', class: 'danger', onclick: () => void remove(bot) }, 'Delete'),
      ),
    );
  }

  async function refresh(): Promise<void> {
    try {
      const page = await api.get<ListPage<Bot>>('/bots?limit=500');
      rows.replaceChildren(
        ...(page.items.length
          ? page.items.map(row)
          : [h('tr', {}, h('td', { colspan: 6, class: 'muted' }, 'No bots yet: make one with the form.'))]),
      );
    } catch (err) {
      toast(`Could not list bots: ${errorText(err)}`, 'error');
    }
  }

  const form = botForm(api, ctx.caps.models, (botId) => ctx.navigate(`#/bots/${encodeURIComponent(botId)}`));
  const element = h(
    'section',
    { class: 'bots', 'aria-label': 'Bots' },
    h('div', { class: 'toolbar' }, h('h1', {}, 'Bots')),
    h('p', { class: 'muted' }, 'A bot answers questions from its own documents, with citations.'),
    h(
      'div',
      { class: 'bots-body' },
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          { class: 'jobs bot-list' },
          h(
            'thead',
            {},
            h('tr', {}, ...['Bot', 'Answers with', 'Documents', 'Chats', 'Created', ''].map((t) => h('th', {}, t))),
          ),
          rows,
        ),
      ),
      form,
    ),
  );
  void refresh().then(() => (element.dataset.loaded = 'true'));
  return { element, dispose: () => undefined };
}
