import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { action, CliError, report } from '../fail.js';
import { withConnection, type CommonFlags, type Connection } from '../owner.js';
import { out, pages, painter, print, note, err } from '../term.js';
import { requireModel } from './add-doc.js';
import type { BotView } from './bot.js';
import { readQuestion, watchCtrlC } from '../chat-input.js';

interface ChatFlags extends CommonFlags {
  chatId?: string;
}

interface Citation {
  chunk_id: string;
  source: string;
  page_numbers: number[];
  quote: string;
}
interface Message {
  message_id: string;
  question: string;
  answer: unknown;
  citations: Citation[];
  not_found: boolean;
  status: string;
  error: { code: string; message: string } | null;
}
interface Asked {
  message: Message | null;
  labels: Map<string, string>;
  streamed: boolean;
  aborted: boolean;
}

const EXIT_WORDS = new Set(['exit', 'quit', ':q', '/exit', '/quit']);

/** Asks one question with `stream: true`, handing tokens to `onToken` as they come. */
async function ask(
  c: Connection,
  botId: string,
  chatId: string,
  question: string,
  o: { signal: AbortSignal; onToken: (t: string) => void; onSources?: () => void },
): Promise<Asked> {
  const labels = new Map<string, string>();
  const r: Asked = { message: null, labels, streamed: false, aborted: false };
  try {
    await c.client.stream(
      `/bots/${encodeURIComponent(botId)}/chats/${encodeURIComponent(chatId)}`,
      { query: question, stream: true },
      (event, data) => {
        const d = data as Record<string, unknown>;
        if (event === 'sources') {
          for (const s of (d.sources as { label: string; chunk_id: string }[]) ?? []) labels.set(s.chunk_id, s.label);
          o.onSources?.();
        } else if (event === 'token') {
          r.streamed = true;
          o.onToken(String(d.text ?? ''));
        } else if (event === 'done') r.message = d as unknown as Message;
        else if (event === 'error')
          throw new CliError(String(d.code ?? 'LLM_FAILED'), String(d.message ?? 'the answer failed'));
      },
      o.signal,
    );
  } catch (e) {
    if (!o.signal.aborted) throw e;
    r.aborted = true;
  }
  return r;
}

/** The citations under an answer: the tag the answer used, the source and its pages, the quote. */
function citationLines(a: Asked, paint: typeof out, quotes: boolean): string[] {
  const cites = a.message?.citations ?? [];
  if (!a.message) return [];
  // An answer without a source is said to be one: the person decides how far to trust it.
  if (!cites.length)
    return [
      paint.dim(
        a.message.not_found ? "(nothing in the bot's documents matched the question)" : '(this answer cites no source)',
      ),
    ];
  return [
    paint.bold('Sources'),
    ...cites.flatMap((ct, i) => {
      const tag = a.labels.get(ct.chunk_id) ?? `S${i + 1}`;
      const where = [ct.source, pages(ct.page_numbers)].filter(Boolean).join(', ');
      return [
        `  ${paint.cyan(`[${tag}]`)} ${where}`,
        ...(quotes && ct.quote
          ? [`       ${paint.dim(`“${ct.quote.length > 160 ? `${ct.quote.slice(0, 159)}…` : ct.quote}”`)}`]
          : []),
      ];
    }),
  ];
}

const answerText = (m: Message | null): string =>
  m ? (typeof m.answer === 'string' ? m.answer : JSON.stringify(m.answer)) : '';

/** A terminal: line editing and history, a spinner until the first token, Ctrl-C stops the answer only. */
async function interactive(
  c: Connection,
  bot: BotView,
  chatId: string,
  model: string,
  earlier: Message[],
): Promise<void> {
  const name = bot.name ?? bot.bot_id;
  print(
    `${out.bold(`Chat with ${name}`)} ${out.dim(`· bot ${bot.bot_id} · chat ${chatId}${earlier.length ? ` (${earlier.length} earlier message${earlier.length === 1 ? '' : 's'})` : ' (new)'}`)}`,
  );
  print(
    out.dim(
      `Answers from the bot's ${bot.documents} document${bot.documents === 1 ? '' : 's'} by ${model}. Ctrl-C stops an answer · exit or Ctrl-D ends · ↑/↓ earlier questions`,
    ),
  );
  for (const m of earlier.slice(-3)) print(out.dim(`› ${m.question}\n${answerText(m)}`));
  print();
  const history = earlier.map((m) => m.question).reverse();
  let current: AbortController | null = null;
  // A SIGINT from elsewhere (kill -INT) stops the answer too, not the session.
  c.onInterrupt(() => current?.abort());
  for (;;) {
    const line = await readQuestion(`${out.cyan('›')} `, history);
    if (line === null) break;
    const question = line.trim();
    if (!question) continue;
    if (EXIT_WORDS.has(question.toLowerCase())) break;
    if (history[0] !== question) history.unshift(question);
    current = new AbortController();
    const spinner = startSpinner('searching');
    const stopWatching = watchCtrlC(() => current?.abort());
    let asked: Asked;
    try {
      asked = await ask(c, bot.bot_id, chatId, question, {
        signal: current.signal,
        onSources: () => spinner.say('writing'),
        onToken: (t) => {
          spinner.stop();
          process.stdout.write(t);
        },
      });
    } catch (e) {
      spinner.stop();
      stopWatching();
      const status = report('chat', e);
      if ((e as { code?: string }).code === 'MODEL_NOT_INSTALLED') {
        process.exitCode = status;
        return;
      }
      continue;
    }
    spinner.stop();
    stopWatching();
    if (asked.aborted) {
      print(` ${out.yellow('⏹ stopped')}`);
      print();
      continue;
    }
    if (!asked.streamed) process.stdout.write(answerText(asked.message));
    print();
    const cites = citationLines(asked, out, true);
    if (cites.length) print(['', ...cites].join('\n'));
    print();
  }
  print(out.dim(`chat saved: lectern chat ${bot.bot_id} --chat-id ${chatId} continues it`));
}

/** Piped questions: each line answered in turn, plain text (or one JSON message a line with --json). */
async function piped(c: Connection, botId: string, chatId: string, json: boolean): Promise<void> {
  const plain = painter(false);
  for await (const line of createInterface({ input: process.stdin, terminal: false })) {
    const question = line.trim();
    if (!question) continue;
    if (EXIT_WORDS.has(question.toLowerCase())) break;
    const signal = new AbortController().signal;
    const asked = await ask(c, botId, chatId, question, {
      signal,
      onToken: (t) => void (json ? undefined : process.stdout.write(t)),
    });
    if (json) {
      print(JSON.stringify({ chat_id: chatId, ...asked.message }));
      continue;
    }
    if (!asked.streamed) process.stdout.write(answerText(asked.message));
    print();
    const cites = citationLines(asked, plain, false);
    if (cites.length) print(cites.join('\n'));
    print();
  }
}

function startSpinner(initial: string) {
  if (!process.stdout.isTTY) return { say: () => undefined, stop: () => undefined };
  const frames = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';
  let text = initial;
  let i = 0;
  let on = true;
  const draw = () => process.stdout.write(`\r\x1b[2K${out.dim(`${frames[i++ % frames.length]} ${text}…`)}`);
  draw();
  const timer = setInterval(draw, 80);
  return {
    say: (t: string) => void (text = t),
    stop: () => {
      if (!on) return;
      on = false;
      clearInterval(timer);
      process.stdout.write('\r\x1b[2K');
    },
  };
}

async function chat(botId: string, flags: ChatFlags): Promise<void> {
  await withConnection(flags, 'chat', async (c) => {
    const bot = await c.client.get<BotView>(`/bots/${encodeURIComponent(botId)}`);
    let model = bot.llm.model ?? '';
    if (bot.llm.provider === 'local') {
      const { models } = await c.client.get<{ models: { id: string; task: string; default: boolean }[] }>('/models');
      model ||= models.find((m) => m.task === 'chat' && m.default)?.id ?? '';
      if (model) await requireModel(c, model, "the bot's answer model");
    }
    let earlier: Message[] = [];
    let chatId = flags.chatId;
    if (chatId) {
      const history = await c.client.get<{ bot_id: string; messages: Message[] }>(
        `/chats/${encodeURIComponent(chatId)}`,
      );
      if (history.bot_id !== bot.bot_id)
        throw new CliError('CHAT_NOT_FOUND', `bot ${bot.bot_id} has no chat ${chatId}`);
      earlier = history.messages.filter((m) => m.status === 'complete');
    } else chatId = (await c.client.post<{ chat_id: string }>(`/bots/${encodeURIComponent(bot.bot_id)}/chats`)).chat_id;
    const label =
      bot.llm.provider === 'extractive'
        ? 'quotes (extractive, no model)'
        : `${model || 'its model'} (${bot.llm.provider})`;
    if (process.stdin.isTTY && !flags.json) await interactive(c, bot, chatId, label, earlier);
    else await piped(c, bot.bot_id, chatId, flags.json ?? false);
    if (!process.stdin.isTTY && !flags.json) note(err.dim(`chat ${chatId}`));
  });
}

const EXAMPLES = `
Examples:
  $ lectern chat $BOT                                   # a new chat; history is saved in it
  $ lectern chat $BOT --chat-id 8d1e…                   # go on with an earlier chat
  $ echo "How do I reset the pump?" | lectern chat $BOT # each piped line answered, plain text
  $ lectern chat $BOT --json < questions.txt            # one JSON message (answer, citations) a line

In the chat: Enter asks, Ctrl-C stops an answer being written (the session goes on), exit, quit or
Ctrl-D ends it; ←/→ edit the line and ↑/↓ bring back earlier questions. Citations follow each
answer: the tag it used, the source (file, URL or article) and its pages.`;

export function addChatCommand(program: Command): void {
  program
    .command('chat')
    .argument('<bot_id>', 'the bot to talk to (lectern bot list shows the ids)')
    .description('chat with a bot in the terminal: answers stream as they are written, with their sources')
    .option('--chat-id <id>', 'go on with an earlier chat of this bot (default: a new chat)')
    .option('-c, --config <path>', 'YAML configuration file (default: ./lectern.yaml when present)')
    .option('--data-dir <dir>', 'the data folder (default: from the config, else the user data folder)')
    .option('--json', 'read questions from stdin and print each answer as one JSON line')
    .addHelpText('after', EXAMPLES)
    .action(action('chat', chat));
}
