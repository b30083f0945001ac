import type { Api } from '../api/client.js';
import { ApiError } from '../api/client.js';
import { h } from '../ui/dom.js';
import { bytes } from '../ui/format.js';
import { errorText } from '../ui/toast.js';

type Kind = 'gguf' | 'folder';

/** What the form holds when Import is pressed. */
interface ImportChoice {
  name: string;
  kind: Kind;
  files: File[];
  pooling: string;
  queryPrefix: string;
  passagePrefix: string;
}

/**
 * A picked folder's file as the server wants it named: its path inside the folder. The browser gives
 * `webkitRelativePath` with the folder's own name first (`e5-small/1_Pooling/config.json`).
 */
export function pathInFolder(file: File): string {
  const rel = file.webkitRelativePath || file.name;
  const slash = rel.indexOf('/');
  return slash < 0 ? rel : rel.slice(slash + 1);
}

/**
 * POST /models/import's multipart body: the name and the embedding fields first (the server reads them
 * before the files), then one `file` field per file, a folder's each under its path inside the folder.
 */
function importBody(c: ImportChoice): FormData {
  const form = new FormData();
  form.append('name', c.name);
  if (c.kind === 'folder') {
    if (c.pooling) form.append('pooling', c.pooling);
    // An empty prefix is left to the folder's own config (config_sentence_transformers.json).
    if (c.queryPrefix) form.append('query_prefix', c.queryPrefix);
    if (c.passagePrefix) form.append('passage_prefix', c.passagePrefix);
    for (const f of c.files) form.append('file', f, pathInFolder(f));
  } else {
    for (const f of c.files) form.append('file', f, f.name);
  }
  return form;
}

/** The server's refusal in words; MODEL_FILES_MISSING names the files the folder lacks. */
function refusal(err: unknown): HTMLElement[] {
  const lines = [h('p', {}, `Not imported: ${errorText(err)}`)];
  const missing = err instanceof ApiError ? (err.details as { missing?: unknown } | undefined)?.missing : undefined;
  if (Array.isArray(missing) && missing.length > 0)
    lines.push(
      h(
        'p',
        { class: 'import-missing' },
        'Missing from the folder: ',
        ...missing.flatMap((m, i) => [i ? ', ' : '', h('code', {}, String(m))]),
      ),
    );
  return lines;
}

function radio(kind: Kind, label: string, checked: boolean): HTMLLabelElement {
  return h(
    'label',
    { class: 'import-kind' },
    h('input', { type: 'radio', name: 'import-kind', value: kind, checked }),
    ` ${label}`,
  );
}

/**
 * "Import a model of your own": a name, then a GGUF chat model's file or an ONNX sentence-embedding model's
 * folder (each file sent under its path inside it) with what its files may not say (pooling, prefixes).
 * The server reads and loads the model once before it lists it, which takes a while: the form shows it is
 * busy. A refusal is shown beside the form, which keeps what was typed.
 */
export function importForm(api: Api, onImported: (modelId: string) => Promise<void>): HTMLDetailsElement {
  const name = h('input', {
    name: 'import-name',
    'aria-label': 'Model name',
    placeholder: 'Name: lowercase letters, digits, - . _',
    maxlength: 64,
    required: true,
    autocomplete: 'off',
  });
  const gguf = h('input', { type: 'file', class: 'import-gguf', accept: '.gguf', 'aria-label': 'GGUF file' });
  const folder = h('input', {
    type: 'file',
    class: 'import-folder',
    webkitdirectory: true,
    multiple: true,
    'aria-label': 'Model folder',
  });
  const pooling = h(
    'select',
    { name: 'import-pooling', 'aria-label': 'Pooling' },
    h('option', { value: '' }, 'As the folder says (1_Pooling/config.json)'),
    h('option', { value: 'mean' }, 'Mean of the tokens'),
    h('option', { value: 'cls' }, 'First token ([CLS])'),
    h('option', { value: 'last' }, 'Last token'),
  );
  const queryPrefix = h('input', {
    name: 'import-query-prefix',
    'aria-label': 'Query prefix',
    placeholder: 'Before each question, e.g. "query: "',
    maxlength: 500,
  });
  const passagePrefix = h('input', {
    name: 'import-passage-prefix',
    'aria-label': 'Passage prefix',
    placeholder: 'Before each chunk, e.g. "passage: "',
    maxlength: 500,
  });
  const ggufPart = h('div', { class: 'import-part' }, h('label', {}, 'File ', gguf));
  const folderPart = h(
    'div',
    { class: 'import-part', hidden: true },
    h('label', {}, 'Folder ', folder),
    h('label', {}, 'Pooling ', pooling),
    h('label', {}, 'Query prefix ', queryPrefix),
    h('label', {}, 'Passage prefix ', passagePrefix),
  );
  const busy = h('progress', { class: 'import-progress', hidden: true, 'aria-label': 'Import' });
  const status = h('span', { class: 'muted import-status', 'aria-live': 'polite' });
  const error = h('div', { class: 'error import-error', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'primary import-submit' }, 'Import');
  const fields = h(
    'fieldset',
    { class: 'import-fields' },
    name,
    h(
      'div',
      { class: 'import-kinds' },
      radio('gguf', 'Chat model (.gguf file)', true),
      radio('folder', 'Embedding model (folder)', false),
    ),
    ggufPart,
    folderPart,
    h('div', { class: 'import-actions' }, submit, ' ', busy, ' ', status),
  );
  const form = h(
    'form',
    { class: 'import-own', 'aria-label': 'Import a model of your own' },
    h(
      'p',
      { class: 'muted' },
      'A GGUF chat model, or an ONNX sentence-embedding model’s folder as sentence-transformers saves it. It is loaded once on the server to check it before it is listed.',
    ),
    fields,
    error,
  );
  const kind = (): Kind =>
    (form.querySelector<HTMLInputElement>('input[name=import-kind]:checked')?.value as Kind) ?? 'gguf';
  form.addEventListener('change', () => {
    ggufPart.hidden = kind() !== 'gguf';
    folderPart.hidden = kind() !== 'folder';
  });
  form.addEventListener('keydown', (e) => e.stopPropagation());
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const choice: ImportChoice = {
      name: name.value.trim(),
      kind: kind(),
      files: Array.from((kind() === 'gguf' ? gguf : folder).files ?? []),
      pooling: pooling.value,
      queryPrefix: queryPrefix.value,
      passagePrefix: passagePrefix.value,
    };
    error.replaceChildren();
    if (choice.files.length === 0) {
      error.append(h('p', {}, choice.kind === 'gguf' ? 'Choose the .gguf file.' : 'Choose the model’s folder.'));
      return;
    }
    const size = choice.files.reduce((n, f) => n + f.size, 0);
    // Disabling the fieldset keeps every value: a refusal leaves the form as it was typed.
    fields.disabled = true;
    form.setAttribute('aria-busy', 'true');
    busy.hidden = false;
    status.textContent = `Sending ${choice.files.length === 1 ? '1 file' : `${choice.files.length} files`} (${bytes(size)}); the server then loads ${choice.name} once to check it…`;
    try {
      await api.sendForm('/models/import', importBody(choice));
      status.textContent = `${choice.name} is imported.`;
      form.reset();
      ggufPart.hidden = false;
      folderPart.hidden = true;
      await onImported(choice.name);
    } catch (err) {
      status.textContent = '';
      error.replaceChildren(...refusal(err));
    } finally {
      fields.disabled = false;
      form.removeAttribute('aria-busy');
      busy.hidden = true;
    }
  });
  // Folded away until wanted: most people come to this screen for the catalog's list below it.
  return h('details', { class: 'panel import-own-wrap' }, h('summary', {}, 'Import a model of your own…'), form);
}
