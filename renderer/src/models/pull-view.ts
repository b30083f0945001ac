import type { Api } from '../api/client.js';
import { h } from '../ui/dom.js';
import { bytes } from '../ui/format.js';
import { errorText } from '../ui/toast.js';
import { cancelPull, type DeskPull, type PullProgress } from './pull-store.js';

export function progressText(p: PullProgress | undefined): string {
  if (!p) return 'Starting the download…';
  if (p.phase === 'verify') return `Checking ${p.file} (sha256)…`;
  return `${bytes(p.received_bytes)} of ${bytes(p.total_bytes)} — ${p.file}`;
}

/**
 * A pull as the desk shows it: a progress bar with what is happening, and Cancel (which stops it for
 * everyone following it; the bytes stay, so Download becomes Resume). Stops listening when `dispose`d.
 */
export function pullView(api: Api, pull: DeskPull): { element: HTMLElement; dispose(): void } {
  const bar = h('progress', { class: 'pull-progress', max: 1, value: 0, 'aria-label': `Download of ${pull.modelId}` });
  const text = h('span', { class: 'pull-text muted', 'aria-live': 'polite' }, progressText(pull.progress));
  const cancel = h('button', { type: 'button', class: 'pull-cancel' }, 'Cancel');
  cancel.addEventListener('click', () => {
    cancel.disabled = true;
    cancelPull(api, pull.modelId).catch((err: unknown) => {
      cancel.disabled = false;
      text.textContent = errorText(err);
    });
  });
  const show = (p: PullProgress): void => {
    bar.max = Math.max(1, p.total_bytes);
    bar.value = p.received_bytes;
    text.textContent = progressText(p);
  };
  if (pull.progress) show(pull.progress);
  const unwatch = pull.watch(show);
  return { element: h('div', { class: 'pull' }, bar, ' ', text, ' ', cancel), dispose: unwatch };
}
