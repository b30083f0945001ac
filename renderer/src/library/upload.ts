import type { Api } from '../api/client.js';
import type { UploadAccepted } from '../api/types.js';
import { h } from '../ui/dom.js';
import { errorText } from '../ui/toast.js';

export interface UploadItem {
  name: string;
  data: Blob;
}

/**
 * Uploads files one after another (the server queues jobs anyway, and one upload at a time keeps a large
 * batch from starving the review requests), with a line per file saying how it went.
 */
export async function uploadAll(api: Api, files: UploadItem[], log: HTMLElement, onDone: () => void): Promise<void> {
  for (const f of files) {
    const line = log.appendChild(h('li', {}, `${f.name}: uploading…`));
    try {
      const res = await api.upload<UploadAccepted>(f.data, f.name);
      line.textContent = `${f.name}: queued as ${res.job_id}`;
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
