import { describe, expect, it } from 'vitest';
import { type Capabilities, readCapabilities } from '../../renderer/src/api/capabilities.js';
import type { Block } from '../../renderer/src/api/types.js';
import { mergeNotes } from '../../renderer/src/review/conflict-dialog.js';
import { mergeText } from '../../renderer/src/review/merge-text.js';
import { boxPercent, estimatePageSize } from '../../renderer/src/review/page-geometry.js';
import { isFlagged, queueOrder } from '../../renderer/src/review/queue-order.js';
import { editChange } from '../../renderer/src/review/review-commands.js';
import { UndoStack } from '../../renderer/src/review/undo-stack.js';
import { parseRoute } from '../../renderer/src/router.js';

// The review desk's decisions that need no browser: merging, queue order, page geometry, what the server
// offers, routes, edits and undo bookkeeping.

const block = (n: number, over: Partial<Block> = {}): Block => ({
  block_id: `b${n}`,
  order_index: n - 1,
  type: over.edited_type ?? 'paragraph',
  text: over.edited_text ?? `text ${n}`,
  original_type: 'paragraph',
  original_text: `text ${n}`,
  page: 1,
  page_number: 1,
  bbox: null,
  heading_level: null,
  indent_level: 0,
  hierarchy_path: [],
  table: null,
  language: null,
  status: 'pending',
  review_status: 'pending',
  edited_text: null,
  edited_type: null,
  reviewer_note: null,
  version: 1,
  current_revision_id: null,
  updated_at: '',
  ...over,
});

describe('mergeText', () => {
  const base = 'The quick brown fox jumps over the lazy dog.';
  it('applies both edits when they touch different parts', () => {
    expect(mergeText(base, base.replace('quick', 'swift'), base.replace('lazy', 'sleepy'))).toEqual({
      text: 'The swift brown fox jumps over the sleepy dog.',
      clean: true,
    });
  });
  it('takes the side that changed when only one did', () => {
    expect(mergeText(base, base, 'theirs')).toEqual({ text: 'theirs', clean: true });
    expect(mergeText(base, 'mine', base)).toEqual({ text: 'mine', clean: true });
    expect(mergeText(base, 'same', 'same')).toEqual({ text: 'same', clean: true });
  });
  it('reports overlapping edits and keeps mine to finish by hand', () => {
    expect(mergeText(base, base.replace('brown fox', 'red fox'), base.replace('brown', 'grey'))).toEqual({
      text: base.replace('brown fox', 'red fox'),
      clean: false,
    });
    expect(mergeText('ab', 'aXb', 'aYb').clean).toBe(false);
  });
  it('keeps both notes when they differ', () => {
    expect(mergeNotes('mine', 'theirs')).toBe('theirs\nmine');
    expect(mergeNotes(null, 'theirs')).toBe('theirs');
    expect(mergeNotes('mine', null)).toBe('mine');
    expect(mergeNotes('same', 'same')).toBe('same');
  });
});

describe('queueOrder', () => {
  it('puts flagged pending blocks first, least confident first, then pending, then reviewed', () => {
    const blocks = [
      block(1, { status: 'approved', confidence: 0.1 }),
      block(2),
      block(3, { confidence: 0.7 }),
      block(4, { confidence: 95 }),
      block(5, { flagged: true, confidence: 0.75 }),
      undefined,
      block(7, { confidence: 40 }),
    ];
    expect(queueOrder(blocks)).toEqual([6, 4, 1, 2, 3, 0]);
  });
  it('honours the server flag over the threshold', () => {
    expect(isFlagged(block(1, { flagged: false, confidence: 0.1 }))).toBe(false);
    expect(isFlagged(block(1, { confidence: 0.69 }))).toBe(true);
    expect(isFlagged(block(1, { confidence: 70 }))).toBe(false);
    expect(isFlagged(block(1))).toBe(false);
  });
});

describe('page geometry', () => {
  it('snaps text extents inside symmetric margins to a paper size', () => {
    expect(estimatePageSize([{ x0: 72, y0: 72, x1: 540, y1: 720 }])).toEqual({ width: 612, height: 792 });
    expect(estimatePageSize([{ x0: 56, y0: 60, x1: 539, y1: 780 }])).toEqual({ width: 595.28, height: 841.89 });
    expect(estimatePageSize([])).toBeNull();
  });
  it('keeps an odd size (slides) as estimated', () => {
    expect(estimatePageSize([{ x0: 20, y0: 20, x1: 344, y1: 236 }])).toEqual({ width: 364, height: 256 });
  });
  it('gives boxes as percentages of the page, clamped to it', () => {
    expect(boxPercent({ x0: 61.2, y0: 79.2, x1: 306, y1: 158.4 }, { width: 612, height: 792 })).toEqual({
      left: 10,
      top: 10,
      width: 40,
      height: 10,
    });
    expect(boxPercent({ x0: -10, y0: 700, x1: 700, y1: 900 }, { width: 612, height: 792 }).width).toBe(100);
  });
});

/** What readCapabilities finds in a server without any of the optional routes: every part of the desk off. */
const NOTHING_OPTIONAL: Capabilities = {
  pageImage: false,
  pageSizes: false,
  pageReocr: false,
  blockSorts: [],
  flaggedFilter: false,
  embed: false,
  models: false,
  modelPull: false,
  modelImport: false,
  customModelImport: false,
  search: false,
  chat: false,
  chatResume: false,
  chatFeedback: false,
  conversations: false,
  bots: false,
  botUpload: false,
  botLinks: false,
  botEncyclopedia: false,
  vision: false,
  feedback: false,
  botResume: false,
  trainChats: false,
};

describe('readCapabilities', () => {
  it('finds nothing optional in a review-only server', () => {
    const caps = readCapabilities({
      paths: { '/jobs/{job_id}/blocks': { get: { parameters: [{ name: 'page', in: 'query' }] } } },
    });
    expect(caps).toEqual(NOTHING_OPTIONAL);
  });
  it('finds page images and sizes, confidence sorting, embed, search and chat whatever the parameter names', () => {
    const caps = readCapabilities({
      paths: {
        '/jobs/{id}/pages/{n}/image': { get: {} },
        '/jobs/{id}/pages': { get: {} },
        '/jobs/{id}/pages/{n}/ocr': { post: {} },
        '/jobs/{job_id}/blocks': {
          get: {
            parameters: [
              { name: 'sort', in: 'query', schema: { anyOf: [{ const: 'order' }, { const: 'confidence' }] } },
              { name: 'flagged', in: 'query' },
            ],
          },
        },
        '/jobs/{job_id}/embed': { post: {} },
        '/models': { get: {} },
        '/models/{model_id}/pull': { post: {} },
        '/models/{id}/import': { post: {} },
        '/models/import': { post: {} },
        '/search': { post: {} },
        '/chat': { post: {} },
        '/chat/sessions': { post: {} },
        '/chat/resume': { post: {} },
      },
    });
    expect(caps).toEqual({
      ...NOTHING_OPTIONAL,
      pageImage: true,
      pageSizes: true,
      pageReocr: true,
      blockSorts: ['order', 'confidence'],
      flaggedFilter: true,
      embed: true,
      models: true,
      modelPull: true,
      modelImport: true,
      customModelImport: true,
      search: true,
      chat: true,
      chatResume: true,
    });
  });
});

describe('readCapabilities for bots', () => {
  it('shows each part of the Bots screen only where the server has its route', () => {
    const caps = readCapabilities({
      paths: {
        '/bots': { get: {}, post: {} },
        '/bots/{bot_id}/documents/upload': { post: {} },
        '/bots/{bot_id}/vision-chats': { post: {} },
        '/bots/{id}/vision-chats/{vid}': { post: {} },
        '/chats/{chat_id}/messages/{message_id}/feedback': { post: {} },
      },
    });
    expect(caps).toMatchObject({
      bots: true,
      botUpload: true,
      botLinks: false,
      botEncyclopedia: false,
      vision: true,
      feedback: true,
      trainChats: false,
    });
  });
});

describe('editChange', () => {
  it('sends only what the reviewer changed, and null to drop a correction', () => {
    const b = block(1, { edited_text: 'fixed', status: 'edited' });
    expect(editChange(b, { text: 'fixed', type: 'paragraph', note: null })).toBeNull();
    expect(editChange(b, { text: 'text 1', type: 'paragraph', note: null })).toEqual({ edited_text: null });
    expect(editChange(b, { text: 'fixed', type: 'heading', note: 'why' })).toEqual({
      edited_type: 'heading',
      reviewer_note: 'why',
    });
  });
});

describe('UndoStack', () => {
  it('keeps the newest actions up to its limit and ignores empty ones', () => {
    const undo = new UndoStack(2);
    const before = { blockId: 'b1', revisionId: 'r1' };
    undo.push({ label: 'none', blocks: [] });
    for (const label of ['a', 'b', 'c']) undo.push({ label, blocks: [before] });
    expect(undo.size).toBe(2);
    expect(undo.pop()?.label).toBe('c');
    expect(undo.pop()?.label).toBe('b');
    expect(undo.pop()).toBeUndefined();
  });
});

describe('parseRoute', () => {
  it('reads job screens and their parameters, and sends anything else to the library', () => {
    const r = parseRoute('#/jobs/abc%20d/review?block=b3');
    expect(r).toMatchObject({ screen: 'review', jobId: 'abc d' });
    expect('params' in r && r.params.get('block')).toBe('b3');
    expect(parseRoute('#/jobs/x/nothing')).toEqual({ screen: 'library' });
    expect(parseRoute('')).toEqual({ screen: 'library' });
    expect(parseRoute('#/bots')).toEqual({ screen: 'bots' });
    expect(parseRoute('#/bots/b%201')).toEqual({ screen: 'bot', botId: 'b 1' });
    expect(parseRoute('#/bots/b1/more')).toEqual({ screen: 'library' });
  });
});
