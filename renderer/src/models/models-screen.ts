import type { AppContext, Screen } from '../app-context.js';
import type { ModelStatus } from '../api/types.js';
import { h } from '../ui/dom.js';
import { bytes } from '../ui/format.js';
import { errorText, toast } from '../ui/toast.js';
import { importForm } from './import-form.js';
import { machineLine, memoryCell } from './model-fit.js';
import { onPullsChanged, runningPull, startPull, type PullProgress } from './pull-store.js';
import { pullView } from './pull-view.js';

/** ModelStatus as GET /models sends it (its `pull` is a $ref the static type cannot follow). */
export type Model = Omit<ModelStatus, 'pull'> & { pull: PullProgress | null };
export interface ModelListing {
  models: Model[];
  models_dir: string;
  memory: { total_bytes: number; free_bytes: number };
  suggested_chat_model: string | null;
}

/**
 * The Models screen: the catalog with what each model is for, its size and whether it is installed;
 * Download (Resume when a broken download left bytes on disk) with a progress bar and Cancel, and Import
 * of a model file from this machine, checked by sha256 on the server; above the list, the import of a model
 * the catalog does not know, listed then as your own.
 */
export function modelsScreen(ctx: AppContext): Screen {
  const { api } = ctx;
  const rows = h('tbody');
  const views: { dispose(): void }[] = [];
  const dir = h('p', { class: 'muted models-dir' });
  const machine = h('div', { class: 'machine' });

  async function importFile(m: Model, file: File): Promise<void> {
    const form = new FormData();
    form.append('file', file, file.name);
    try {
      const done = await api.sendForm<{ imported: string[]; missing: string[]; installed: boolean }>(
        `/models/${encodeURIComponent(m.id)}/import`,
        form,
      );
      toast(
        done.installed
          ? `${m.name} is installed`
          : `Imported ${done.imported.join(', ')}; still missing: ${done.missing.join(', ')}`,
      );
    } catch (err) {
      toast(`Could not import ${file.name}: ${errorText(err)}`, 'error');
    }
    await refresh();
  }

  /** Shows the model's pull in its row; `announce`: the reviewer started it here, so its end is toasted. */
  function follow(m: Model, cell: HTMLElement, announce = false): void {
    const pull = startPull(api, m.id);
    const view = pullView(api, pull);
    views.push(view);
    cell.replaceChildren(view.element);
    if (announce)
      pull.done.then(
        () => toast(`${m.name} is installed and verified`),
        (err: unknown) =>
          toast(
            `Download of ${m.name} stopped: ${errorText(err)}`,
            (err as { code?: string }).code === 'PULL_CANCELLED' ? 'info' : 'error',
          ),
      );
  }

  function actions(m: Model): HTMLElement {
    const cell = h('td', { class: 'actions' });
    // A pull this desk follows, or one another client started (joined: same events, one download).
    if (runningPull(m.id) || m.pull) {
      if (ctx.caps.modelPull) follow(m, cell);
      else cell.append(h('span', { class: 'muted' }, 'Downloading…'));
      return cell;
    }
    if (m.installed) return cell;
    // Downloading it would be for nothing: the server cannot run it yet.
    if (!m.runnable) return cell;
    if (ctx.caps.modelPull) {
      const resume = m.partial_bytes > 0;
      cell.append(
        h(
          'button',
          { type: 'button', class: 'primary pull-start', onclick: () => follow(m, cell, true) },
          resume ? `Resume (${bytes(m.partial_bytes)} downloaded)` : 'Download',
        ),
      );
    }
    if (ctx.caps.modelImport) {
      const input = h('input', {
        type: 'file',
        class: 'import-file',
        'aria-label': `Import a file of ${m.name}`,
        hidden: true,
      });
      input.addEventListener('change', () => {
        const file = input.files?.[0];
        if (file) void importFile(m, file);
      });
      cell.append(
        ' ',
        h('button', { type: 'button', class: 'import-start', onclick: () => input.click() }, 'Import a file…'),
        input,
      );
    }
    return cell;
  }

  function row(m: Model): HTMLElement {
    const state = !m.runnable
      ? h('span', { class: 'badge warn', title: m.not_runnable_reason ?? '' }, 'not yet runnable here')
      : m.installed
        ? h('span', { class: 'badge ok' }, 'installed')
        : h('span', { class: 'badge' }, m.partial_bytes > 0 ? 'partly downloaded' : 'not installed');
    return h(
      'tr',
      {
        'data-model': m.id,
        'data-fits': m.fits,
        class: [m.installed ? 'installed' : '', m.suggested ? 'suggested' : ''].filter(Boolean).join(' '),
      },
      h(
        'td',
        {},
        h(
          'div',
          { class: 'model-name' },
          m.name,
          m.default ? h('span', { class: 'badge' }, 'default') : null,
          m.suggested ? h('span', { class: 'badge ok suggested-badge' }, 'suggested for this machine') : null,
          m.custom
            ? h('span', { class: 'badge own-badge', title: 'Imported from files of your own' }, 'your own')
            : null,
          // The name it was imported under, which is what a bot or a setting names it by.
          m.custom && m.name !== m.id ? h('code', { class: 'model-id' }, m.id) : null,
          m.languages === 'multilingual' ? h('span', { class: 'badge languages-badge' }, 'about 100 languages') : null,
        ),
        h('div', { class: 'muted' }, m.description ?? ''),
        m.not_runnable_reason ? h('div', { class: 'muted not-runnable' }, m.not_runnable_reason) : null,
      ),
      h('td', {}, m.task),
      h('td', { class: 'num' }, `${m.size_approximate ? '~' : ''}${bytes(m.size_bytes)}`),
      memoryCell(m),
      h('td', { class: 'muted' }, m.licence),
      h('td', { class: 'model-state' }, state),
      actions(m),
    );
  }

  async function refresh(): Promise<void> {
    try {
      const list = await api.get<ModelListing>('/models');
      for (const v of views.splice(0)) v.dispose();
      dir.textContent = `Installed models live in ${list.models_dir}.`;
      machine.replaceChildren(machineLine(list));
      rows.replaceChildren(...list.models.map(row));
    } catch (err) {
      toast(`Could not list models: ${errorText(err)}`, 'error');
    }
  }

  // A pull ending (here or from the chat's "Get the model") changes a row: installed, or Resume.
  const unlisten = onPullsChanged(() => void refresh());
  const element = h(
    'section',
    { class: 'models', 'aria-label': 'Models' },
    h('div', { class: 'toolbar' }, h('h1', {}, 'Models')),
    h(
      'p',
      { class: 'muted' },
      'Embedding models index documents for search; chat models write answers on this machine. Every file is checked by sha256 before it is used.',
    ),
    machine,
    dir,
    ctx.caps.customModelImport
      ? importForm(api, async (id) => {
          toast(`${id} is imported and listed`);
          await refresh();
          rows.querySelector(`tr[data-model="${CSS.escape(id)}"]`)?.scrollIntoView({ block: 'nearest' });
        })
      : null,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'jobs model-list' },
        h(
          'thead',
          {},
          h('tr', {}, ...['Model', 'Task', 'Size', 'Memory', 'Licence', 'State', ''].map((t) => h('th', {}, t))),
        ),
        rows,
      ),
    ),
  );
  void refresh().then(() => (element.dataset.loaded = 'true'));
  return {
    element,
    dispose() {
      unlisten();
      for (const v of views.splice(0)) v.dispose();
    },
  };
}
