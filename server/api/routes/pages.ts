import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, fileResponse } from '../../schemas/common.js';
import { JobParams } from '../../schemas/jobs.js';
import { PageImageQuery, PageList, PageListQuery, PageParams, ReocrBody, ReocrResult } from '../../schemas/pages.js';
import type { ServerDeps } from '../services.js';

const tags = ['pages'];

export const pagesRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  app.get(
    '/jobs/:job_id/pages',
    {
      schema: {
        tags,
        summary: 'The pages of a document, with their size and rotation',
        description:
          "Each page's size in points as it is shown (after its /Rotate), the space block boxes and page images are in, the turn it is shown at, " +
          'and what OCR did on it. Empty until extraction has read the pages. The job carries the most common size as `page_size`. ' +
          "409 INVALID_STATE for formats without pages (DOCX, XLSX, PPTX, CSV, HTML, Markdown, text; a PPTX's blocks carry their slide number as `page`, without geometry).",
        params: JobParams,
        querystring: PageListQuery,
        response: { 200: PageList, ...errors(400, 401, 404, 409) },
      },
    },
    async (req) => deps.pages.list(req.params.job_id, req.query),
  );

  app.get(
    '/jobs/:job_id/pages/:page/image',
    {
      schema: {
        tags,
        summary: 'The page as a PNG image',
        description:
          'A PDF page rendered, or a page of an image document, `size` pixels wide. Rendered once per page and size, then served from ' +
          "the object store (the data directory, or object_store_url). 404 PAGE_NOT_FOUND past the last page, OBJECT_NOT_FOUND when the stored original is gone; 409 INVALID_STATE for formats without pages (DOCX, XLSX, PPTX, CSV, HTML, Markdown, text; a PPTX's blocks carry their slide number as `page`, without geometry) " +
          'and for a job that failed or was cancelled; 422 PAGE_RENDER_FAILED when the stored document cannot be drawn (`details.reason`); ' +
          '502 OBJECT_STORE_FAILED when the object store cannot be read.',
        params: PageParams,
        querystring: PageImageQuery,
        response: { 200: fileResponse('image/png', 'The page image'), ...errors(400, 401, 404, 409, 422, 502) },
      },
    },
    async (req, reply) => {
      const image = await deps.pageImages.image(req.params.job_id, req.params.page, req.query.size);
      return reply.type('image/png').header('cache-control', 'private, max-age=86400').send(image);
    },
  );

  app.post(
    '/jobs/:job_id/pages/:page/ocr',
    {
      schema: {
        tags,
        summary: 'Re-read a page or a region of it with OCR',
        description:
          'Reads the page again (or only `bbox`, in points), at `dpi` and with `language`, and offers the new text to every block the region ' +
          'covers (half of the block or more inside it). Pending OCR blocks take the new text (one audit revision each, action `reocr`; their ' +
          'chunks become stale); approved, edited and rejected blocks and text-layer blocks are never overwritten: the new text is in ' +
          '`suggestions` for the reviewer to use with PATCH. `apply: false` only offers. Needs the job `ready_for_review` (409 otherwise); ' +
          '502 OBJECT_STORE_FAILED when the stored original cannot be read from the object store.',
        params: PageParams,
        body: ReocrBody,
        response: { 200: ReocrResult, ...errors(400, 401, 404, 409, 422, 502) },
      },
    },
    async (req) => deps.reocr.run(req.params.job_id, req.params.page, req.body, req.reviewer),
  );
};
