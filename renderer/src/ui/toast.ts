import { h } from './dom.js';

let region: HTMLElement | undefined;

/** A short status line in a live region, so screen readers hear it too. */
export function toast(message: string, kind: 'info' | 'error' = 'info', ms = 4000): void {
  region ??= document.body.appendChild(h('div', { class: 'toasts', role: 'status', 'aria-live': 'polite' }));
  const item = region.appendChild(h('div', { class: `toast ${kind}` }, message));
  setTimeout(() => item.remove(), kind === 'error' ? ms * 2 : ms);
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
