import type { AppContext } from '../app-context.js';
import { acceptDrops, documentPicker, uploadAll, uploadItems, type UploadItem } from '../library/upload.js';
import { h } from '../ui/dom.js';
import { errorText } from '../ui/toast.js';

/** One line of an addition's answer: a job added, a duplicate, or why it failed. */
interface Added {
  job_id?: string | null;
  status: string;
  source?: string;
  error?: { message: string };
}

/**
 * The ways a bot gets documents in the desk: files by picker or dropped on `dropTarget` (uploaded one after
 * another), links, and an encyclopedia search. Each addition writes a line per document to the log, and
 * `onAdded` lets the document list poll at once.
 */
export function documentSources(
  ctx: AppContext,
  botId: string,
  dropTarget: HTMLElement,
  onAdded: () => void,
): HTMLElement {
  const { api, caps } = ctx;
  const base = `/bots/${encodeURIComponent(botId)}/documents`;
  const log = h('ul', { class: 'upload-log' });
  const review = h('input', { type: 'checkbox', class: 'hold-review', 'aria-label': 'Hold new documents for review' });

  const note = (text: string, kind: 'ok' | 'error' | '' = '') => log.appendChild(h('li', { class: kind }, text));
  const report = (list: Added[]) => {
    for (const d of list) {
      if (d.status === 'failed') note(`${d.source ?? ''}: ${d.error?.message ?? 'failed'}`, 'error');
      else note(`${d.source ?? ''}: ${d.status === 'duplicate' ? 'already in this bot' : 'added'}`, 'ok');
    }
    onAdded();
  };

  const send = async (f: UploadItem) => {
    const form = new FormData();
    if (review.checked) form.append('review', 'true');
    form.append('file', f.data, f.name);
    const res = await api.sendForm<Added>(`${base}/upload`, form);
    return res.status === 'duplicate' ? 'already in this bot' : 'added';
  };
  const upload = (files: UploadItem[]) => void uploadAll(files, log, send, onAdded);

  /** Inputs and a button that runs `work` (Enter in an input too), disabled meanwhile so a slow fetch is not sent twice. */
  function actionRow(inputs: HTMLInputElement[], text: string, cls: string, work: () => Promise<void>): HTMLElement {
    const button = h('button', { type: 'button', class: cls }, text);
    const run = async () => {
      if (button.disabled) return;
      button.disabled = true;
      try {
        await work();
      } catch (err) {
        note(errorText(err), 'error');
      } finally {
        button.disabled = false;
      }
    };
    button.addEventListener('click', () => void run());
    for (const input of inputs) input.addEventListener('keydown', (e) => e.key === 'Enter' && void run());
    return h('div', { class: 'source-row' }, ...inputs, button);
  }

  function fileRow(): HTMLElement {
    const picker = documentPicker(ctx.bridge, 'Documents to add', upload);
    acceptDrops(dropTarget, (files) => upload(uploadItems(files)));
    return h(
      'div',
      { class: 'source-row' },
      h('button', { type: 'button', class: 'primary add-files', onclick: () => void picker.pick() }, 'Add files…'),
      picker.input,
      h('span', { class: 'muted' }, 'or drop them here'),
    );
  }

  function linkRow(): HTMLElement {
    const links = h('input', {
      type: 'url',
      name: 'links',
      'aria-label': 'Links',
      placeholder: 'https://… (several: separate with spaces)',
    });
    return actionRow([links], 'Add links', 'add-links', async () => {
      const list = links.value.split(/\s+/).filter(Boolean);
      if (!list.length) return;
      const res = await api.send<{ documents: Added[] }>('POST', `${base}/link`, {
        links: list,
        review: review.checked,
      });
      links.value = '';
      report(res.documents);
    });
  }

  function encyclopediaRow(): HTMLElement {
    const query = h('input', {
      type: 'search',
      name: 'encyclopedia',
      'aria-label': 'Encyclopedia search',
      placeholder: 'Encyclopedia search, e.g. heat transfer',
    });
    const pages = h('input', {
      type: 'number',
      name: 'max-pages',
      min: 1,
      max: 20,
      value: 2,
      'aria-label': 'Articles at most',
      class: 'max-pages',
    });
    return actionRow([query, pages], 'Add articles', 'add-articles', async () => {
      if (!query.value.trim()) return;
      const body = { search_query: query.value.trim(), max_pages: Number(pages.value) || 2, review: review.checked };
      const res = await api.send<{ documents: (Added & { title?: string })[] }>('POST', `${base}/query`, body);
      query.value = '';
      if (!res.documents.length) note('The encyclopedia found no article.', 'error');
      report(res.documents.map((d) => ({ ...d, source: d.title ?? d.source })));
    });
  }

  const parts = [
    caps.botUpload ? fileRow() : null,
    caps.botLinks ? linkRow() : null,
    caps.botEncyclopedia ? encyclopediaRow() : null,
  ];
  const element = h(
    'div',
    { class: 'document-sources' },
    ...parts,
    h('label', { class: 'muted' }, review, ' hold new documents for review before the bot uses them'),
    log,
  );
  element.addEventListener('keydown', (e) => e.stopPropagation());
  return element;
}
