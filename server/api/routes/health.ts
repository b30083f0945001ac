import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../../schemas/common.js';
import type { ServerDeps } from '../services.js';

export const healthRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  app.get(
    '/health',
    {
      schema: {
        tags: ['service'],
        summary: 'Health check',
        response: {
          200: Type.Object({
            status: Type.Literal('ok'),
            version: Type.String(),
            uptime_s: Type.Number(),
            workers: Type.Object({
              threads: Type.Integer({ description: 'Worker threads for extraction, OCR, chunking and embedding.' }),
              warm: Type.Integer({
                description: 'Threads done with their start-up warm-up (see the warm_up_rounds setting).',
              }),
            }),
            llm: Type.Object({
              running: Type.Boolean({
                description:
                  'Whether the llama host process runs: it starts with the first local chat, not with the server.',
              }),
              threads: Type.Integer({ description: 'CPU threads it generates with (setting llm_threads).' }),
            }),
          }),
          ...errors(401),
        },
      },
    },
    async () => ({
      status: 'ok' as const,
      version: deps.appVersion,
      uptime_s: Math.round(process.uptime()),
      workers: { threads: deps.pool.threads, warm: deps.pool.warmThreads() },
      llm: { running: deps.llm.started, threads: deps.llm.threads },
    }),
  );
};
