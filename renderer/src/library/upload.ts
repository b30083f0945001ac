import type { Bridge } from '../api/connection.js';
import { h } from '../ui/dom.js';
import { errorText } from '../ui/toast.js';

/** The document types the server reads, offered by the file pickers. */
const ACCEPT = '.pdf,.docx,.xlsx,.xlsm,.pptx,.csv,.tsv,.html,.htm,.md,.markdown,.txt,.png,.jpg,.jpeg,.tif,.tiff,.webp';

export interface UploadItem {
  name: string;
  data: Blob;
}

export const uploadItems = (files: File[]): UploadItem[] => files.map((f) => ({ name: f.name, data: f }));

/**
 * Uploads files one after another (the server queues jobs anyway, and one upload at a time keeps a large
 * batch from starving the review requests), with a line per file saying how it went: `send` uploads one
 * and says what became of it ("queued as …").
 */
export async function uploadAll(
  files: UploadItem[],
  log: HTMLElement,
  send: (f: UploadItem) => Promise<string>,
  onDone: () => void,
): Promise<void> {
  for (const f of files) {
    const line = log.appendChild(h('li', {}, `${f.name}: uploading…`));
    try {
      line.textContent = `${f.name}: ${await send(f)}`;
      line.className = 'ok';
    } catch (err) {
      line.textContent = `${f.name}: ${errorText(err)}`;
      line.className = 'error';
    }
    onDone();
  }
}

/** Files dropped anywhere on `target`; the drop outline shows while something is dragged over it. */
export function acceptDrops(target: HTMLElement, onFiles: (files: File[]) => void): void {
  let depth = 0;
  target.addEventListener('dragenter', (e) => {
    if (!e.dataTransfer?.types.includes('Files')) return;
    depth += 1;
    target.classList.add('dropping');
  });
  target.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (!depth) target.classList.remove('dropping');
  });
  target.addEventListener('dragover', (e) => {
    if (e.dataTransfer?.types.includes('Files')) e.preventDefault();
  });
  target.addEventListener('drop', (e) => {
    e.preventDefault();
    depth = 0;
    target.classList.remove('dropping');
    const files = Array.from(e.dataTransfer?.files ?? []);
    if (files.length) onFiles(files);
  });
}

/**
 * Choosing documents: in the desktop app the native dialog reads the files; in a browser the hidden file
 * input (`input`, to be put in the page) does. `pick` opens whichever there is.
 */
export function documentPicker(
  bridge: Bridge | undefined,
  label: string,
  onFiles: (items: UploadItem[]) => void,
): { input: HTMLInputElement; pick(): Promise<void> } {
  const input = h('input', { type: 'file', multiple: true, accept: ACCEPT, hidden: true, 'aria-label': label });
  input.addEventListener('change', () => {
    onFiles(uploadItems(Array.from(input.files ?? [])));
    input.value = '';
  });
  const pick = async () => {
    if (!bridge?.openFiles) return input.click();
    const files = await bridge.openFiles();
    onFiles(files.map((f) => ({ name: f.name, data: new Blob([f.data as Uint8Array<ArrayBuffer>]) })));
  };
  return { input, pick };
}
