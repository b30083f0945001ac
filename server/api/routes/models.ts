import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MODEL_CATALOG } from '../../models/catalog.js';
import { errors } from '../../schemas/common.js';
import { ModelList } from '../../schemas/models.js';
import type { ServerDeps } from '../services.js';

export const modelsRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  app.get(
    '/models',
    {
      schema: {
        tags: ['models'],
        summary: 'Known embedding and chat models and whether each is installed',
        description:
          'Install a model with `lectern models pull <id>` (downloads, resumes, checks sha256) or, offline, `lectern models import <id> <path>`.',
        response: { 200: ModelList, ...errors(401) },
      },
    },
    async () => {
      const statuses = await deps.models.list();
      return {
        models_dir: deps.models.modelsDir,
        models: statuses.map((s) => {
          const m = MODEL_CATALOG.find((c) => c.id === s.id)!;
          return {
            id: s.id,
            name: s.name,
            task: m.task,
            weights: s.weights,
            licence: s.licence,
            homepage: m.homepage,
            dimensions: s.dimensions,
            pooling: m.task === 'embedding' ? m.pooling : null,
            max_tokens: m.task === 'embedding' ? m.maxTokens : m.contextTokens,
            size_bytes: s.sizeBytes,
            installed: s.installed,
            missing: s.missing,
            default: s.id === (m.task === 'embedding' ? deps.settings.embedding_model : deps.settings.chat_model),
            files: m.files.map((f) => ({ path: f.path, url: f.url, size: f.size, sha256: f.sha256 })),
          };
        }),
      };
    },
  );
};
