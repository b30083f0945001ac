import type { JobSource } from '../../../server/store/repos/bots-repo.js';
import type { Store } from '../../../server/store/store.js';

/**
 * Rows a case needs that belong to an aggregate whose repository is not in the Store yet (jobs, their
 * blocks and chunks). Each backend writes them its own way; once that repository exists, the cases write
 * through it.
 */
export interface ContractSeeds {
  job(j: {
    job_id: string;
    bot_id: string | null;
    status: string;
    file_hash?: string;
    source?: JobSource | null;
    created_at: string;
  }): Promise<void>;
  block(b: {
    job_id: string;
    block_id: string;
    order_index: number;
    type: string;
    text: string;
    status: string;
  }): Promise<void>;
  chunk(c: {
    job_id: string;
    chunk_id: string;
    order_index: number;
    text: string;
    status: string;
    edited_text?: string | null;
    chunk_type?: string;
    page_numbers?: number[];
    section_path?: string[];
  }): Promise<void>;
}

export type SeedsOf = (store: Store) => ContractSeeds;

/** The seeds as SQL with positional parameters, for a backend that runs one statement with them. */
export function sqlSeeds(
  run: (sql: string, params: unknown[]) => Promise<void>,
  placeholder: (n: number) => string,
): ContractSeeds {
  const values = (n: number) => Array.from({ length: n }, (_, i) => placeholder(i + 1)).join(', ');
  return {
    job: (j) =>
      run(
        `INSERT INTO jobs (job_id, status, source_file, format, file_hash, size_bytes, options, bot_id, source, created_at, updated_at) VALUES (${values(11)})`,
        [
          j.job_id,
          j.status,
          `${j.job_id}.md`,
          'markdown',
          j.file_hash ?? `hash-${j.job_id}`,
          1,
          JSON.stringify({ chunk_size: 512, chunk_overlap: 64 }),
          j.bot_id,
          j.source == null ? null : JSON.stringify(j.source),
          j.created_at,
          j.created_at,
        ],
      ),
    block: (b) =>
      run(
        `INSERT INTO blocks (job_id, block_id, order_index, page, type, text, hierarchy_path, status) VALUES (${values(8)})`,
        [b.job_id, b.block_id, b.order_index, 1, b.type, b.text, '[]', b.status],
      ),
    chunk: (c) =>
      run(
        `INSERT INTO chunks (job_id, chunk_id, order_index, text, token_count, chunk_type, section_path, page_numbers, block_ids, status, edited_text) VALUES (${values(11)})`,
        [
          c.job_id,
          c.chunk_id,
          c.order_index,
          c.text,
          1,
          c.chunk_type ?? 'section',
          JSON.stringify(c.section_path ?? []),
          JSON.stringify(c.page_numbers ?? [1]),
          '[]',
          c.status,
          c.edited_text ?? null,
        ],
      ),
  };
}
