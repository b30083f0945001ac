import type { Api } from '../api/client.js';
import type { ConversationSummary } from '../api/types.js';
import { errorText } from '../ui/toast.js';
import type { ChatTransport } from './chat-transport.js';
import { writeConversationAddress } from './conversation-address.js';
import { newestFirst } from './conversation-list.js';

/** What the panel reports to the reader: a sentence under the question box, and "draw the list again". */
export interface StateEvents {
  changed(): void;
  say(text: string): void;
}

/**
 * The conversations of one job or bot as the server has them, and which one is open (null: a new one, made on
 * the server by its first question). Renames and deletes go to the server first; the list follows what it answers.
 */
export class ConversationState<T> {
  list: ConversationSummary[] = [];
  open: string | null = null;
  /** First questions of untitled conversations (the summaries do not carry them), by conversation id. */
  readonly firsts = new Map<string, string>();
  private learning = false;

  constructor(
    private readonly api: Api,
    private readonly chat: ChatTransport<T>,
    /** The server has the conversation routes; without them each visit starts a new conversation. */
    readonly listed: boolean,
    private readonly signal: AbortSignal,
    private readonly on: StateEvents,
  ) {}

  current(): ConversationSummary | null {
    return this.list.find((c) => c.conversation_id === this.open) ?? null;
  }

  /** Opens `id`, written in the address so a reload comes back to it. */
  setOpen(id: string | null): void {
    this.open = id;
    writeConversationAddress(id);
    this.on.changed();
  }

  /** Reads the list again (after every answer: sizes and times change). */
  async refresh(): Promise<void> {
    if (!this.listed) return;
    try {
      this.list = newestFirst(await this.chat.list(this.signal));
      if (this.open && !this.current()) {
        // Deleted elsewhere (another tab, the API): its turns stay on screen, but nothing more is asked there.
        this.setOpen(null);
        this.on.say('This conversation is no longer on the server: the next question starts a new one.');
      }
      this.on.changed();
      void this.learnFirsts();
    } catch (err) {
      if (!this.signal.aborted) this.on.say(`Could not read the conversations: ${errorText(err)}`);
    }
  }

  /** Untitled conversations are named by their first question, read one at a time after the list is drawn. */
  private async learnFirsts(): Promise<void> {
    if (this.learning) return;
    this.learning = true;
    try {
      for (const c of this.list) {
        if (c.title || !c.message_count || this.firsts.has(c.conversation_id) || this.signal.aborted) continue;
        const first = await this.chat.history(c.conversation_id, this.signal).then(
          (turns) => turns[0],
          () => undefined,
        );
        if (first) this.firsts.set(c.conversation_id, this.chat.facts(first).question);
        this.on.changed();
      }
    } finally {
      this.learning = false;
    }
  }

  async rename(c: ConversationSummary, title: string | null): Promise<void> {
    try {
      const renamed = await this.api.send<ConversationSummary>(
        'PATCH',
        `/conversations/${encodeURIComponent(c.conversation_id)}`,
        { title },
      );
      this.list = this.list.map((x) => (x.conversation_id === c.conversation_id ? renamed : x));
      this.on.changed();
    } catch (err) {
      await this.refresh();
      this.on.say(`Could not rename the conversation: ${errorText(err)}`);
    }
  }

  /** Deletes `c` on the server; true when it is gone. */
  async remove(c: ConversationSummary): Promise<boolean> {
    try {
      await this.api.send('DELETE', `/conversations/${encodeURIComponent(c.conversation_id)}`);
      this.list = this.list.filter((x) => x.conversation_id !== c.conversation_id);
      this.on.changed();
      return true;
    } catch (err) {
      await this.refresh();
      this.on.say(`Could not delete the conversation: ${errorText(err)}`);
      return false;
    }
  }

  /** What a conversation is called in a sentence. */
  nameOf(c: ConversationSummary): string {
    return c.title ?? this.firsts.get(c.conversation_id) ?? 'This conversation';
  }
}
