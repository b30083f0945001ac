import type { Block } from '../api/types.js';
import { toast } from '../ui/toast.js';
import type { BlockStore } from './block-store.js';
import type { ListTools } from './list-tools.js';
import type { PageView } from './page-view.js';
import { queueSummary } from './queue-order.js';
import type { ReviewCommands } from './review-commands.js';
import { changesBlocks, showReviewKeys, type ReviewCommand } from './review-keys.js';
import type { ReviewOrder } from './review-order.js';
import type { RereadRegion } from './reread-region.js';

/** What the desk's commands act on: its parts, and the screen's own moves. */
export interface ReviewDesk {
  jobId: string;
  store: BlockStore;
  order: ReviewOrder;
  commands: ReviewCommands;
  tools: ListTools;
  pageView: PageView;
  reread: RereadRegion | null;
  currentBlock(): Block | undefined;
  refusal(): Promise<string | null>;
  select(p: number, align?: 'nearest' | 'center'): void;
  stepPage(dir: 1 | -1): void;
  setStatus(status: Block['status']): Promise<void>;
  startEditing(note: boolean): void;
  /** The queue mode changed: order the list again. */
  reorder(): void;
  refresh(): void;
  navigate(hash: string): void;
  /** Keeps the queue mode for the next visit to this job. */
  rememberQueueMode(on: boolean): void;
}

/** Runs one of the desk's commands (keys, toolbar and list buttons all come here); blocks change only while the review is open. */
export async function runReviewCommand(d: ReviewDesk, c: ReviewCommand): Promise<void> {
  if (changesBlocks(c)) {
    const refused = await d.refusal();
    if (refused) return void toast(refused);
  }
  const b = d.currentBlock();
  const { order } = d;
  switch (c) {
    case 'next':
      return d.select(Math.min(order.pos + 1, order.length - 1));
    case 'prev':
      return d.select(Math.max(order.pos - 1, 0));
    case 'approve':
      return d.setStatus('approved');
    case 'reject':
      return d.setStatus('rejected');
    case 'reset':
      return d.setStatus('pending');
    case 'edit':
    case 'note':
      if (b) d.startEditing(c === 'note');
      return;
    case 'nextPage':
      return d.stepPage(1);
    case 'prevPage':
      return d.stepPage(-1);
    case 'undo': {
      const undone = await d.commands.undoLast();
      if (undone?.structural) await d.tools.reload(null);
      toast(undone ? `Undid ${undone.label}.` : 'Nothing to undo.');
      return d.refresh();
    }
    case 'toggleQueue':
      order.queueMode = !order.queueMode;
      d.rememberQueueMode(order.queueMode);
      d.reorder();
      if (order.queueMode) toast(queueSummary(Array.from({ length: d.store.total }, (_, i) => d.store.at(i))));
      return d.select(order.queueMode ? 0 : order.pos, 'center');
    case 'approvePage': {
      if (!b) return;
      const { approved } = await d.commands.approveMany(d.store.onPage(b.page), `approve page ${b.page}`);
      toast(`Approved ${approved} block(s) on page ${b.page}.`);
      return d.refresh();
    }
    case 'history':
      if (b) d.navigate(`#/jobs/${encodeURIComponent(d.jobId)}/audit?entity=${encodeURIComponent(b.block_id)}`);
      return;
    case 'help':
      return showReviewKeys();
    case 'zoomIn':
      return d.pageView.zoom.step(1);
    case 'zoomOut':
      return d.pageView.zoom.step(-1);
    case 'zoomFit':
      return d.pageView.zoom.set(1);
    case 'reread':
      // Not awaited: the action queue must stay free while the reviewer drags the region.
      return void d.reread?.begin();
    default:
      await d.tools.run(c);
  }
}
