import { h } from '../ui/dom.js';
import { errorText } from '../ui/toast.js';
import type { Rating } from './chat-transport.js';

/**
 * Thumbs up and down under an answer ("helpful", "not helpful"). The rating is the server's (a down-rated bot answer is never offered
 * for training); the pressed button shows what it holds, from the stored turn on reload too, and another click changes it.
 */
export function answerFeedback(rate: (rating: Rating) => Promise<void>, current: Rating | null): HTMLElement {
  const status = h('span', { class: 'muted feedback-status', 'aria-live': 'polite' });
  const buttons = new Map<Rating, HTMLButtonElement>();
  const show = (rating: Rating) => {
    for (const [r, b] of buttons) b.setAttribute('aria-pressed', String(r === rating));
    bar.dataset.rating = rating;
  };
  const click = async (rating: Rating) => {
    try {
      await rate(rating);
      show(rating);
      status.textContent = rating === 'up' ? 'Thanks: marked helpful' : 'Marked not helpful';
    } catch (err) {
      status.textContent = `Could not rate: ${errorText(err)}`;
    }
  };
  // Words with the marks rather than emoji: machines without an emoji font would show empty boxes.
  for (const [rating, text] of [
    ['up', '✓ Helpful'],
    ['down', '✗ Not helpful'],
  ] as const) {
    buttons.set(
      rating,
      h(
        'button',
        { type: 'button', class: `thumb thumb-${rating}`, 'aria-pressed': 'false', onclick: () => void click(rating) },
        text,
      ),
    );
  }
  const bar = h('div', { class: 'feedback' }, ...buttons.values(), status);
  if (current) show(current);
  return bar;
}
