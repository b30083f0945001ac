import type { Command } from 'commander';
import { action, CliError, usage } from '../fail.js';
import { commonFlags, withConnection, type CommonFlags, type Connection } from '../owner.js';
import { examples } from '../help-text.js';
import { createPrompter } from '../prompts.js';
import { ago, err, note, out, print, table } from '../term.js';

/** A bot as GET /bots and GET /bots/{id} answer it (the fields the CLI shows). */
export interface BotView {
  bot_id: string;
  name: string | null;
  prompt_template: string;
  llm: { provider: string; model?: string; base_url?: string };
  embedding_model: string;
  documents: number;
  chats: number;
  created_at: string;
}

async function allBots(c: Connection): Promise<BotView[]> {
  const bots: BotView[] = [];
  for (let skip = 0; ; skip += 500) {
    const page = await c.client.get<{ items: BotView[]; total: number }>(`/bots?skip=${skip}&limit=500`);
    bots.push(...page.items);
    if (bots.length >= page.total || page.items.length === 0) return bots;
  }
}

async function list(flags: CommonFlags): Promise<void> {
  const bots = await withConnection(flags, 'bot list', allBots);
  if (flags.json) return print(JSON.stringify({ bots }));
  if (bots.length === 0) return note(`no bots yet: ${err.bold('lectern bot create --prompt "…"')} makes one`);
  const rows = bots.map((b) => [b.bot_id, b.name ?? '-', String(b.documents), String(b.chats), ago(b.created_at)]);
  // gh's habit: an aligned table on a terminal, tab-separated rows without a header for a pipe.
  if (!process.stdout.isTTY) return rows.forEach((r) => print(r.join('\t')));
  for (const line of table(['ID', 'NAME', 'DOCUMENTS', 'CHATS', 'CREATED'], rows)) print(line);
}

async function create(flags: CommonFlags & { prompt: string; name?: string }): Promise<void> {
  if (!flags.prompt.trim())
    throw usage('the prompt cannot be empty', 'say what the bot is for, e.g. --prompt "You answer from the manuals."');
  const bot = await withConnection(flags, 'bot create', async (c) => {
    const { bot_id } = await c.client.post<{ bot_id: string }>('/bots', {
      prompt_template: flags.prompt,
      ...(flags.name ? { name: flags.name } : {}),
    });
    return c.client.get<BotView>(`/bots/${encodeURIComponent(bot_id)}`);
  });
  if (flags.json) return print(JSON.stringify(bot));
  // Only the id on stdout, so `BOT=$(lectern bot create -p …)` works; the rest is for the person.
  print(bot.bot_id);
  const model = bot.llm.model ? `${bot.llm.provider} model ${bot.llm.model}` : `the ${bot.llm.provider} model`;
  note(
    `${err.green('✔')} created bot ${bot.name ?? bot.bot_id} (answers with ${model}). Next: ${err.bold(`lectern add-doc ${bot.bot_id} PATH_OR_URL`)}`,
  );
}

async function remove(botId: string, flags: CommonFlags & { yes?: boolean }): Promise<void> {
  if (!flags.yes && !process.stdin.isTTY)
    throw usage(
      `refusing to delete bot ${botId} without confirmation`,
      'add --yes when no one is at a terminal to confirm',
    );
  const deleted = await withConnection(flags, 'bot delete', async (c) => {
    const bot = await c.client.get<BotView>(`/bots/${encodeURIComponent(botId)}`);
    if (!flags.yes) {
      const prompter = createPrompter();
      try {
        const what = `${bot.name ? `${bot.name} (${bot.bot_id})` : bot.bot_id} with its ${bot.documents} document${bot.documents === 1 ? '' : 's'} and ${bot.chats} chat${bot.chats === 1 ? '' : 's'}`;
        if (!(await prompter.confirm({ label: `Delete bot ${what}? This cannot be undone.`, default: false }))) {
          throw new CliError('NOT_CONFIRMED', `bot ${botId} was not deleted`, 'answer y, or pass --yes');
        }
      } finally {
        prompter.close();
      }
    }
    return c.client.del<{ status: string; bot_id: string }>(`/bots/${encodeURIComponent(botId)}`);
  });
  if (flags.json) return print(JSON.stringify(deleted));
  print(`${out.green('✔')} deleted bot ${deleted.bot_id} with its documents, vectors and chats`);
}

const EXAMPLES = `
Examples:
  $ lectern bot create --prompt "You answer from the lab's safety manuals." --name safety
  $ BOT=$(lectern bot create -p "You answer questions about our API.")   # the id alone on stdout
  $ lectern bot list
  $ lectern bot list --json | jq -r '.bots[].bot_id'
  $ lectern bot delete 3f2c9a1e-…            # asks first on a terminal
  $ lectern bot delete 3f2c9a1e-… --yes`;

const common = (c: Command, json = true): Command => commonFlags(c, undefined, json);

/** `lectern bot list | create | delete`. */
export function addBotCommands(program: Command): void {
  const bot = program
    .command('bot')
    .description('bots: list them, create one with its instructions, delete one with everything it holds')
    .addHelpText('after', EXAMPLES);
  common(
    bot
      .command('list')
      .description('every bot: id, name, documents, chats, when it was created')
      .addHelpText('after', examples('lectern bot list', 'lectern bot list --json')),
  ).action(action('bot list', list));
  common(
    bot
      .command('create')
      .description('create a bot and print its id')
      .requiredOption('-p, --prompt <text>', "the bot's instructions (its system prompt)")
      .option('--name <name>', 'a name to tell it apart in `lectern bot list`')
      .addHelpText(
        'after',
        examples(
          'lectern bot create --prompt "You answer from the manuals." --name manuals',
          'BOT=$(lectern bot create -p "You answer questions about our API.")',
        ),
      ),
  ).action(action('bot create', create));
  common(
    bot
      .command('delete')
      .argument('<bot_id>', 'the bot to delete (lectern bot list shows the ids)')
      .description('delete a bot with its documents, vectors and chats (asks first on a terminal)')
      .option('-y, --yes', 'do not ask for confirmation (needed when not on a terminal)')
      .addHelpText('after', examples('lectern bot delete 3f2c9a1e-…', 'lectern bot delete 3f2c9a1e-… --yes --json')),
  ).action(action('bot delete', remove));
}
