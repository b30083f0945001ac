import { h } from './dom.js';

export interface DialogButton<T> {
  label: string;
  value: T;
  kind?: 'primary' | 'danger';
  /** Key that picks this button while the dialog is open (besides clicking it). */
  key?: string;
}

/**
 * A modal <dialog> that resolves with the chosen button's value, or `cancel` on Escape. Focus starts on
 * the button whose value is `focus`, else the first primary one, else the first, and returns to where it
 * was afterwards.
 */
export function openDialog<T>(opts: {
  title: string;
  body: Node[];
  buttons: DialogButton<T>[];
  cancel: T;
  className?: string;
  focus?: T;
}): Promise<T> {
  const previous = document.activeElement as HTMLElement | null;
  return new Promise<T>((resolve) => {
    const dlg = h('dialog', { class: `dialog ${opts.className ?? ''}`, 'aria-label': opts.title });
    const done = (value: T) => {
      dlg.close();
      dlg.remove();
      previous?.focus();
      resolve(value);
    };
    const buttons = opts.buttons.map((b) =>
      h(
        'button',
        { type: 'button', class: b.kind ?? '', 'data-value': String(b.value), onclick: () => done(b.value) },
        b.key ? `${b.label} (Alt+${b.key})` : b.label,
      ),
    );
    dlg.append(h('h2', {}, opts.title), ...opts.body, h('div', { class: 'dialog-buttons' }, ...buttons));
    dlg.addEventListener('cancel', (e) => {
      e.preventDefault();
      done(opts.cancel);
    });
    dlg.addEventListener('keydown', (e) => {
      if (e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLInputElement || !e.altKey) return;
      const hit = opts.buttons.find((b) => b.key && b.key.toLowerCase() === e.key.toLowerCase());
      if (hit) {
        e.preventDefault();
        done(hit.value);
      }
    });
    document.body.appendChild(dlg);
    dlg.showModal();
    const wanted = opts.focus !== undefined ? opts.buttons.findIndex((b) => b.value === opts.focus) : -1;
    const first = buttons[wanted >= 0 ? wanted : opts.buttons.findIndex((b) => b.kind === 'primary')] ?? buttons[0];
    first?.focus();
  });
}

export async function confirmDialog(title: string, text: string, action: string): Promise<boolean> {
  return openDialog({
    title,
    body: [h('p', {}, text)],
    buttons: [
      { label: 'Cancel', value: false },
      { label: action, value: true, kind: 'danger' },
    ],
    cancel: false,
  });
}
