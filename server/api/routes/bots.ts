import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { botView } from '../../core/bots/bots-service.js';
import { ingestStatus } from '../../core/bots/ingest-status.js';
import { deleteBot } from '../../core/bots/delete-bot.js';
import { AppError } from '../../core/errors.js';
import {
  ArticlesAdded,
  BotCreated,
  BotDeleted,
  BotDetail,
  BotList,
  BotListQuery,
  BotParams,
  BotStatus,
  BuildBody,
  CreateBotBody,
  DocumentsAdded,
  LinkBody,
  PathAdded,
  PathBody,
  PromptBody,
  QueryBody,
} from '../../schemas/bots.js';
import { errors } from '../../schemas/common.js';
import { abortOnHangUp } from '../sse.js';
import type { ServerDeps } from '../services.js';

const tags = ['bots'];

/** Bots and their documents (Long-Trainer's routes, with its 200 statuses; listing and reading bots are new). */
export const botsRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  app.post(
    '/bots',
    {
      schema: {
        tags,
        summary: 'Create a bot',
        description:
          "An isolated bot: its instructions, answer model, embedding model and retrieval settings; its knowledge is a vector collection of its own. Defaults: the configured answer provider and model (settings llm_provider, llm_model), the server's embedding model, top_k 5.",
        body: CreateBotBody,
        response: { 200: BotCreated, ...errors(400, 401) },
      },
    },
    async (req) => ({ bot_id: (await deps.bots.create(req.body)).bot_id }),
  );

  app.get(
    '/bots',
    {
      schema: {
        tags,
        summary: 'List bots',
        querystring: BotListQuery,
        response: { 200: BotList, ...errors(400, 401) },
      },
    },
    async (req) => deps.bots.list(req.query, req.access?.scope),
  );

  app.get(
    '/bots/:bot_id',
    {
      schema: {
        tags,
        summary: 'A bot: settings, counts and its documents with their job status',
        params: BotParams,
        response: { 200: BotDetail, ...errors(401, 404) },
      },
    },
    async (req) => {
      const bot = await deps.bots.shown(req.params.bot_id);
      const [documents, counts] = await Promise.all([deps.bots.documents(bot.bot_id), deps.bots.counts(bot.bot_id)]);
      return {
        ...botView(bot),
        ...counts,
        document_list: documents.map((j) => ({
          job_id: j.job_id,
          source_file: j.source_file,
          status: j.status,
          ingest_status: ingestStatus({ status: j.status, source: j.source, errorCode: j.error_code }),
          source: j.source as Record<string, unknown> | null,
          created_at: j.created_at,
        })),
      };
    },
  );

  app.post(
    '/bots/:bot_id/build',
    {
      schema: {
        tags,
        summary: "Make sure every finished document is in the bot's index",
        description:
          'Idempotent catch-up (documents become searchable as soon as they are read): answers once every finished document is embedded (a document held for review stays held). ' +
          '`prompt_template` replaces the instructions; `agent_mode: true` or tools answer 400 NOT_SUPPORTED.',
        params: BotParams,
        body: BuildBody,
        response: { 200: BotStatus, ...errors(400, 401, 404) },
      },
    },
    async (req) => {
      if (req.body.agent_mode || req.body.tools?.length)
        throw new AppError('NOT_SUPPORTED', 'agent mode and tools are not supported: bots answer from their documents');
      await deps.bots.get(req.params.bot_id);
      if (req.body.prompt_template?.trim())
        await deps.bots.setPrompt(req.params.bot_id, req.body.prompt_template.trim());
      await deps.botPipeline.build(req.params.bot_id);
      return { status: 'ok' as const, bot_id: req.params.bot_id };
    },
  );

  app.post(
    '/bots/:bot_id/load',
    {
      schema: {
        tags,
        summary: 'Load a bot',
        description:
          'Nothing is held in memory between requests, so this only checks the bot exists (Long-Trainer clients call it).',
        params: BotParams,
        response: { 200: BotStatus, ...errors(401, 404) },
      },
    },
    async (req) => {
      await deps.bots.get(req.params.bot_id);
      return { status: 'ok' as const, bot_id: req.params.bot_id };
    },
  );

  app.delete(
    '/bots/:bot_id',
    {
      schema: {
        tags,
        summary: 'Delete a bot with its documents (jobs, files, vectors), chats and index',
        params: BotParams,
        response: { 200: BotDeleted, ...errors(401, 404, 502) },
      },
    },
    async (req) => deleteBot({ bots: deps.bots, jobs: deps.jobs, indexer: deps.indexer }, req.params.bot_id),
  );

  app.put(
    '/bots/:bot_id/prompt',
    {
      schema: {
        tags,
        summary: "Replace the bot's instructions",
        params: BotParams,
        body: PromptBody,
        response: { 200: BotStatus, ...errors(400, 401, 404) },
      },
    },
    async (req) => {
      await deps.bots.setPrompt(req.params.bot_id, req.body.prompt_template);
      return { status: 'ok' as const, bot_id: req.params.bot_id };
    },
  );

  app.post(
    '/bots/:bot_id/documents/path',
    {
      schema: {
        tags,
        summary: 'Add a file or a folder on this machine',
        description:
          'The path must resolve, symlinks followed, inside one of the folders of the setting document_roots (403 PATH_NOT_ALLOWED outside them, whether or not anything is there; 404 FILE_NOT_FOUND inside). ' +
          'A file becomes one job (poll GET /jobs/{job_id}: `ingest_status`); a folder adds each document in it, recursively, up to max_folder_files. ' +
          'The same content twice in one bot is added once (`duplicate`, with the existing job).',
        params: BotParams,
        body: PathBody,
        response: { 200: PathAdded, ...errors(400, 401, 403, 404, 413, 415, 502) },
      },
    },
    async (req) => {
      const r = await deps.botDocuments.addPath(req.params.bot_id, req.body.path, req.body.review);
      if (r.single) return { job_id: r.added.job_id ?? undefined, status: r.added.status };
      return {
        status: 'pending',
        job_ids: r.documents.flatMap((x) => (x.job_id && x.status === 'pending' ? [x.job_id] : [])),
        documents: r.documents.map((x) => ({ ...x })),
        truncated: r.truncated,
      };
    },
  );

  app.post(
    '/bots/:bot_id/documents/link',
    {
      schema: {
        tags,
        summary: 'Add web pages and documents by URL',
        description:
          'Each URL is fetched through the guarded fetch (loopback and private addresses refused unless allowed; every redirect checked); HTML pages are ' +
          'reduced to their main content, PDFs, DOCX and images read by their own extractors. Each link is listed with its job or the reason it failed; ' +
          'when none could be read: 502 LINK_FETCH_FAILED with every reason (403 URL_NOT_ALLOWED when the outbound policy refused every one).',
        params: BotParams,
        body: LinkBody,
        response: { 200: DocumentsAdded, ...errors(400, 401, 404, 502) },
      },
    },
    async (req, reply) => ({
      status: 'ok' as const,
      documents: (
        await deps.botDocuments.addLinks(req.params.bot_id, req.body.links, req.body.review, abortOnHangUp(reply))
      ).map((x) => ({ ...x })),
    }),
  );

  app.post(
    '/bots/:bot_id/documents/query',
    {
      schema: {
        tags,
        summary: 'Add encyclopedia articles found by a search',
        description:
          'The MediaWiki API of the setting encyclopedia_url: whole articles (never cut short), disambiguation pages skipped; each article one job recording its title, URL and revision.',
        params: BotParams,
        body: QueryBody,
        response: { 200: ArticlesAdded, ...errors(400, 401, 403, 404, 502) },
      },
    },
    async (req, reply) => ({
      status: 'ok' as const,
      documents: (
        await deps.botDocuments.addArticles(
          req.params.bot_id,
          req.body.search_query,
          { language: req.body.language, max_pages: req.body.max_pages, review: req.body.review },
          abortOnHangUp(reply),
        )
      ).map((x) => ({ ...x })),
    }),
  );
};
