import type { Api } from '../api/client.js';
import { h } from '../ui/dom.js';
import { errorText } from '../ui/toast.js';

type Rating = 'up' | 'down';

/**
 * Thumbs up and down under an answer ("helpful", "not helpful"). The rating is the server's (a down-rated answer is never offered for
 * training); the pressed button shows what it holds, and another click changes it.
 */
export function answerFeedback(api: Api, chatId: string, messageId: string): HTMLElement {
  const status = h('span', { class: 'muted feedback-status', 'aria-live': 'polite' });
  const buttons = new Map<Rating, HTMLButtonElement>();
  const rate = async (rating: Rating) => {
    try {
      await api.send('POST', `/chats/${encodeURIComponent(chatId)}/messages/${encodeURIComponent(messageId)}/feedback`, { rating });
      for (const [r, b] of buttons) b.setAttribute('aria-pressed', String(r === rating));
      bar.dataset.rating = rating;
      status.textContent = rating === 'up' ? 'Thanks: marked helpful' : 'Marked not helpful: it will not be learned from';
    } catch (err) {
      status.textContent = `Could not rate: ${errorText(err)}`;
    }
  };
  // Words with the marks rather than emoji: machines without an emoji font would show empty boxes.
  for (const [rating, text] of [['up', '✓ Helpful'], ['down', '✗ Not helpful']] as const) {
    buttons.set(rating, h('button', { type: 'button', class: `thumb thumb-${rating}`, 'aria-pressed': 'false', onclick: () => void rate(rating) }, text));
  }
  const bar = h('div', { class: 'feedback' }, ...buttons.values(), status);
  return bar;
}
