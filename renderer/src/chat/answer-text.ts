import { h } from '../ui/dom.js';

/** What an answer says when nothing was found (the server sends its own words; an empty answer gets these). */
export const NOT_FOUND_TEXT = 'Not found: the approved content of this document does not answer this question.';

/**
 * An answer's text with each [S1]-style marker of a source it has turned into a link that shows that
 * source: `showSource` scrolls the source into view and highlights it. Markers of sources the turn
 * does not list stay plain text.
 */
export function renderAnswer(
  el: HTMLElement,
  text: string,
  labels: ReadonlySet<string>,
  showSource: (label: string) => void,
): void {
  const parts: (string | HTMLElement)[] = [];
  let last = 0;
  for (const m of text.matchAll(/\[(S\d+)\]/g)) {
    const label = m[1]!;
    if (!labels.has(label)) continue;
    parts.push(text.slice(last, m.index));
    parts.push(
      h(
        'a',
        {
          href: '#',
          class: 'cite',
          'data-label': label,
          title: `Show source ${label}`,
          onclick: (e: Event) => {
            e.preventDefault();
            showSource(label);
          },
        },
        `[${label}]`,
      ),
    );
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  el.replaceChildren(...parts);
}

/** Scrolls a turn's source into view (within its own pane) and highlights it for a moment. */
export function highlightSource(list: HTMLElement, label: string): void {
  const item = list.querySelector<HTMLElement>(`li[data-label="${label}"]`);
  if (!item) return;
  list.querySelectorAll('li.highlight').forEach((other) => other.classList.remove('highlight'));
  item.classList.add('highlight');
  item.scrollIntoView({ block: 'nearest' });
  item.querySelector<HTMLAnchorElement>('a')?.focus({ preventScroll: true });
}
