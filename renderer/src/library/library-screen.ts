import type { AppContext, Screen } from '../app-context.js';
import type { Job, JobListAnswer, UploadAccepted } from '../api/types.js';
import { h } from '../ui/dom.js';
import { confirmDialog } from '../ui/dialog.js';
import { bytes, label, when } from '../ui/format.js';
import { screenFrame } from '../ui/screen-frame.js';
import { errorText, toast } from '../ui/toast.js';
import { OPENABLE, pagesProgress, WORKING } from './job-progress.js';
import { acceptDrops, documentPicker, uploadAll, uploadItems, type UploadItem } from './upload.js';

const FILTERS = ['', 'queued,processing', 'ready_for_review', 'finalized', 'indexed', 'failed', 'cancelled'];

/**
 * The library: every job with its status and live page progress (polled each second while one is
 * working), upload by picker or drag and drop, cancel, delete with confirmation, filter by status.
 */
export function libraryScreen(ctx: AppContext): Screen {
  const { api } = ctx;
  let timer = 0;
  let disposed = false;
  const filter = h(
    'select',
    { 'aria-label': 'Filter by status', class: 'status-filter' },
    ...FILTERS.map((f) => h('option', { value: f }, f ? label(f.replace(',', ' or ')) : 'All jobs')),
  );
  const rows = h('tbody');
  const log = h('ul', { class: 'upload-log' });
  const send = async (f: UploadItem) => `queued as ${(await api.upload<UploadAccepted>(f.data, f.name)).job_id}`;
  const upload = (items: UploadItem[]) => void uploadAll(items, log, send, () => void refresh());
  const picker = documentPicker(ctx.bridge, 'Documents to upload', upload);

  async function act(job: Job, action: 'cancel' | 'delete'): Promise<void> {
    try {
      if (action === 'delete') {
        if (
          !(await confirmDialog(
            'Delete this job?',
            `${job.source_file} and all its review work will be removed for good.`,
            'Delete',
          ))
        )
          return;
        await api.send('DELETE', `/jobs/${encodeURIComponent(job.job_id)}`);
        ctx.desks.forget(job.job_id);
      } else await api.send('POST', `/jobs/${encodeURIComponent(job.job_id)}/cancel`);
    } catch (err) {
      toast(`Could not ${action} ${job.source_file}: ${errorText(err)}`, 'error');
    }
    await refresh();
  }

  function row(job: Job): HTMLElement {
    const id = encodeURIComponent(job.job_id);
    const open = OPENABLE.has(job.status);
    return h(
      'tr',
      { 'data-job': job.job_id, 'data-status': job.status },
      h(
        'td',
        {},
        open ? h('a', { href: `#/jobs/${id}/review` }, job.title ?? job.source_file) : (job.title ?? job.source_file),
        h('div', { class: 'muted' }, `${job.source_file} · ${bytes(job.size_bytes)}`),
      ),
      h(
        'td',
        {},
        h('span', { class: `badge job-${job.status}` }, label(job.status)),
        job.error ? h('div', { class: 'error' }, job.error.message) : null,
      ),
      h('td', {}, pagesProgress(job)),
      h('td', { class: 'num' }, job.total_blocks),
      h('td', { class: 'num' }, job.total_chunks),
      h('td', { class: 'muted' }, when(job.created_at)),
      h(
        'td',
        { class: 'actions' },
        open ? h('a', { href: `#/jobs/${id}/review`, class: 'button' }, 'Review') : null,
        job.status === 'finalized' || job.status === 'indexed'
          ? h('a', { href: `#/jobs/${id}/finalize`, class: 'button' }, 'Export')
          : null,
        WORKING.has(job.status)
          ? h('button', { type: 'button', onclick: () => void act(job, 'cancel') }, 'Cancel')
          : null,
        h('button', { type: 'button', class: 'danger', onclick: () => void act(job, 'delete') }, 'Delete'),
      ),
    );
  }

  /** No job listed: none at all, or none in the status asked for (then one click shows them all). */
  function emptyRow(): HTMLElement {
    const cell = h('td', { colspan: 7, class: 'muted empty' });
    if (!filter.value) cell.append('No jobs yet: drop documents here or use Upload.');
    else {
      const all = h('button', { type: 'button', class: 'show-all' }, 'Show all jobs');
      all.addEventListener('click', () => {
        filter.value = '';
        void refresh();
      });
      cell.append(`No job matches the filter “${filter.selectedOptions[0]?.textContent ?? filter.value}”. `, all);
    }
    return h('tr', {}, cell);
  }

  async function refresh(): Promise<void> {
    clearTimeout(timer);
    let active = false;
    try {
      const q = filter.value ? `&status=${encodeURIComponent(filter.value)}` : '';
      const { jobs } = await api.get<JobListAnswer>(`/jobs?limit=500${q}`);
      active = jobs.some((j) => WORKING.has(j.status));
      rows.replaceChildren(...(jobs.length ? jobs.map(row) : [emptyRow()]));
    } catch (err) {
      toast(`Could not list jobs: ${errorText(err)}`, 'error');
    }
    // Live progress: poll fast only while some job is working.
    if (!disposed) timer = window.setTimeout(() => void refresh(), active ? 1000 : 5000);
  }
  filter.addEventListener('change', () => void refresh());

  const element = screenFrame(
    { class: 'library', title: 'Library' },
    [
      h('button', { type: 'button', class: 'primary', onclick: () => void picker.pick() }, 'Upload…'),
      picker.input,
      filter,
    ],
    h(
      'p',
      { class: 'drop-hint muted' },
      'Drop PDF, DOCX, XLSX, PPTX, CSV, HTML, Markdown or text files, or scans (PNG, JPEG, TIFF, WebP), anywhere here to upload them.',
    ),
    log,
    h(
      'table',
      { class: 'jobs' },
      h(
        'thead',
        {},
        h('tr', {}, ...['Document', 'Status', 'Pages', 'Blocks', 'Chunks', 'Created', ''].map((t) => h('th', {}, t))),
      ),
      rows,
    ),
  );
  acceptDrops(element, (files) => upload(uploadItems(files)));
  void refresh();
  return {
    element,
    dispose() {
      disposed = true;
      clearTimeout(timer);
    },
  };
}
